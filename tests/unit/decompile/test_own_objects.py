"""What mpigen writes beside the operator's fields, read back (mpigen.decompile.own_objects):
from mpigen's own render into the blueprint fields that wrote it; from a hand-written MPIJob
only where rendering gives it back, else reported at its line."""

from __future__ import annotations

from tests.support.own_objects import IDENTITY, OURS, imported, job
from tests.support.text import pos

def test_mpigens_topology_request_and_multikueue_are_scheduling_fields():
    annotation = "{annotations: {kueue.x-k8s.io/podset-required-topology: rack}}"
    spec, reported = imported(job(LABELS=OURS, WORKER_META=annotation, POLICY="{managedBy: kueue.x-k8s.io/multikueue}"))
    assert reported == []
    assert spec["scheduling"] == {"queue": "q", "topology": {"required": "rack"}, "multiKueue": True}


def test_without_a_queue_multikueue_is_reported_at_its_line():
    text = job(POLICY="{managedBy: kueue.x-k8s.io/multikueue}")
    spec, reported = imported(text)
    assert "scheduling" not in spec
    assert [(where, "leaves it out" in message) for _, where, message in reported] == [
        (pos(text, "managedBy"), True)]


def test_a_launcher_that_is_a_worker_comes_back_only_from_mpigens_own_mpijob():
    spec, reported = imported(job(LABELS=OURS, AS_WORKER="true", NP="3"))
    assert (spec["launcher"], reported) == ({"runAsWorker": True}, [])
    text = job(AS_WORKER="true", NP="3")
    _, reported = imported(text)
    # (and its -np 3, which now oversubscribes the 2 workers, at the launch line)
    assert [where for _, where, _ in reported][:1] == [pos(text, "runLauncherAsWorker")]


def test_the_identity_mpigen_made_is_read_from_its_serviceaccount_when_given():
    spec, reported = imported(job(ACCOUNT="train-identity") + IDENTITY)
    assert reported == []
    assert spec["serviceAccount"] == {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/x"}}
    assert "podTemplatePatch" not in spec
    text = job(ACCOUNT="train-identity")  # its ServiceAccount not given: the workers run as it (serviceAccount.name),
    spec, reported = imported(text)      # the launcher's account is reported
    assert (spec["serviceAccount"], "podTemplatePatch" in spec) == ({"name": "train-identity"}, False)
    assert [where for _, where, _ in reported] == [pos(text, "serviceAccountName: train-identity\n          containers:\n          - name: mpi-launcher",
                                                    "serviceAccountName")]


def test_privileged_ranks_are_security_privileged_and_a_privileged_launcher_alone_is_reported():
    spec, reported = imported(job(WORKER_CONTEXT="{privileged: true, capabilities: {add: [IPC_LOCK]}}"))
    assert (spec["security"], reported) == ({"privileged": True, "capabilities": ["IPC_LOCK"]}, [])
    text = job(LAUNCHER_CONTEXT="{privileged: true}")
    spec, reported = imported(text)
    assert "security" not in spec
    assert [where for _, where, _ in reported] == [pos(text, "privileged")]
