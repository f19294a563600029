"""`mpigen import` is lossless or says what it loses, case by case: template labels,
restart policies, worker commands, container names, claims, replicas, what a launcher
says, volumes and spec fields (issue 15, defects 8, 9 and 10).

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.text import pos
from tests.support.import_round_trip import (V1, V1ALPHA2, V2BETA1, assert_round_trip, imported, job, launchers,
                                             refused_at, warned_at)


# --- the cases of the issue, one by one --------------------------------------------------

LABELLED = job(launcher="", workers=2).replace(
    "      template:\n        spec:\n",
    "      template:\n        metadata:\n          labels: {team: vision, tier: gold}\n"
    "          annotations: {sidecar.istio.io/inject: \"false\"}\n        spec:\n")


def test_template_labels_and_annotations_round_trip():
    assert_round_trip(yaml.safe_load(LABELLED))
    assert_round_trip({**yaml.safe_load(LABELLED), "apiVersion": V2BETA1})


def test_a_label_of_one_template_only_is_that_roles_own():
    text = LABELLED.replace("labels: {team: vision, tier: gold}", "labels: {team: vision}", 1)
    assert_round_trip(yaml.safe_load(text))
    blueprint, _ = imported(text)
    assert blueprint["metadata"]["labels"] == {"team": "vision"}
    assert blueprint["spec"]["podTemplatePatch"] == {"worker": {"metadata": {"labels": {"tier": "gold"}}}}


def test_template_labels_that_differ_are_each_roles_own():
    text = LABELLED.replace("  name: train\n", "  name: train\n  labels: {team: nlp}\n", 1)
    text = text.replace("labels: {team: vision, tier: gold}", "labels: {team: vision, tier: silver}", 1)
    assert_round_trip(yaml.safe_load(text))
    blueprint, _ = imported(text)
    assert blueprint["metadata"]["labels"] == {"team": "nlp"}
    assert blueprint["spec"]["podTemplatePatch"] == {
        "launcher": {"metadata": {"labels": {"team": "vision", "tier": "silver"}}},
        "worker": {"metadata": {"labels": {"team": "vision", "tier": "gold"}}}}


def test_a_label_of_the_mpijob_that_one_template_leaves_out_is_reported_at_its_line():
    """metadata.labels reach both pod templates: one without the MPIJob's label cannot be said."""
    text = LABELLED.replace("  name: train\n", "  name: train\n  labels: {tier: gold}\n", 1)
    text = text.replace("labels: {team: vision, tier: gold}", "labels: {team: vision}", 1)
    (message,) = warned_at(text, ("team: vision, tier: gold", "tier"))
    assert "worker template only" in message and "the launcher's pods get it too" in message
    warned_at(text, ("team: vision, tier: gold", "tier"), strict=True)


@pytest.mark.parametrize("policy", ["OnFailure", "Always", "ExitCode"])
def test_launcher_restart_policies_the_v1alpha2_controller_turns_into_on_failure_round_trip(policy):
    assert_round_trip(yaml.safe_load(job(launcher=f"      restartPolicy: {policy}\n")))


def test_a_launcher_that_never_restarts_is_reported():
    text = job(launcher="      restartPolicy: Never\n")
    (message,) = warned_at(text, ("restartPolicy: Never", "restartPolicy"))
    assert "restart OnFailure" in message


@pytest.mark.parametrize("api, worker, launcher, needle", [
    (V1, "      restartPolicy: OnFailure\n", "", "restartPolicy: OnFailure"),
    (V1, "", "      restartPolicy: OnFailure\n", "restartPolicy: OnFailure"),
    (V2BETA1, "      restartPolicy: OnFailure\n", "", "restartPolicy: OnFailure"),
    (V2BETA1, "", "      restartPolicy: Never\n", "restartPolicy: Never"),
])
def test_restart_policies_other_than_what_a_blueprint_renders_are_reported(api, worker, launcher, needle):
    warned_at(job(api, worker=worker, launcher=launcher), (needle, "restartPolicy"))


@pytest.mark.parametrize("api", [V1, V2BETA1])
def test_default_restart_policies_round_trip(api):
    defaults = {V1: ("Never", "Never"), V2BETA1: ("OnFailure", "Never")}[api]
    assert_round_trip(yaml.safe_load(job(api)))
    assert_round_trip(yaml.safe_load(job(api, launcher=f"      restartPolicy: {defaults[0]}\n",
                                         worker=f"      restartPolicy: {defaults[1]}\n")))


@pytest.mark.parametrize("command", ['[""]', "[sleep, infinity]", "[/usr/sbin/sshd, -De]"])
@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
def test_a_worker_command_the_operator_keeps_is_reported(api, command):
    text = job(api, worker_container=f"            command: {command}\n")
    (message,) = warned_at(text, (f"command: {command}", "command"))
    assert "as written" in message and "cannot express" in message


@pytest.mark.parametrize("container", ["", "            command: []\n", "            args: [--verbose]\n"])
def test_a_worker_command_the_v1alpha2_controller_replaces_round_trips(container):
    assert_round_trip(yaml.safe_load(job(worker_container=container)))


def test_a_v2beta1_worker_with_args_keeps_them_and_is_reported():
    text = job(V2BETA1, worker_container="            args: [--verbose]\n")
    warned_at(text, ("args: [--verbose]", "args"))


def test_container_names_given_by_main_container_round_trip():
    text = job(spec="  mainContainer: trainer\n").replace("name: mpi-launcher", "name: trainer") \
        .replace("name: mpi-worker", "name: trainer")
    assert_round_trip(yaml.safe_load(text))
    assert_round_trip(yaml.safe_load(text.replace(V1ALPHA2, V1)))


def test_one_custom_name_for_both_containers_is_each_roles_own_without_main_container():
    """Without the MPIJob's mainContainer kubexec.sh execs into the first container, as the
    operator's does: a blueprint's mainContainer would add --container, each role's own name does not."""
    text = job().replace("name: mpi-launcher", "name: trainer").replace("name: mpi-worker", "name: trainer")
    assert_round_trip(yaml.safe_load(text))
    blueprint, _ = imported(text)
    assert "mainContainer" not in blueprint["spec"]
    assert blueprint["spec"]["podTemplatePatch"] == {"launcher": {"containerName": "trainer"},
                                                     "worker": {"containerName": "trainer"}}
    # v2beta1 has no kubexec.sh: the names are all there is, and they round-trip
    assert_round_trip(yaml.safe_load(text.replace(V1ALPHA2, V2BETA1)))


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
def test_container_names_that_differ_per_role_round_trip(api):
    """Names of an MPIJob's own (the operator's v0.8.0 examples/v2beta1 use mpi-launcher and mpi-worker,
    mpigen's defaults, or one name for both): each role's containerName, as written."""
    text = job(api).replace("name: mpi-launcher", "name: launcher").replace("name: mpi-worker", "name: worker")
    assert_round_trip(yaml.safe_load(text))
    blueprint, _ = imported(text)
    assert blueprint["spec"]["podTemplatePatch"] == {"launcher": {"containerName": "launcher"},
                                                     "worker": {"containerName": "worker"}}


def test_a_name_other_than_main_containers_is_reported():
    text = job(spec="  mainContainer: trainer\n").replace("name: mpi-launcher", "name: trainer")
    (message,) = warned_at(text, ("name: mpi-worker", "name"))
    assert "is renamed 'trainer'" in message


CLAIM = """          volumes:
          - name: data
            persistentVolumeClaim: {{claimName: imagenet{read_only}}}
"""
MOUNT = "            volumeMounts: [{{name: data, mountPath: /data{mount}}}]\n"


def claim_job(read_only: str, mount: str, api: str = V1ALPHA2) -> str:
    return job(api, launcher_container=MOUNT.format(mount=mount) + CLAIM.format(read_only=read_only),
               worker_container=MOUNT.format(mount=mount) + CLAIM.format(read_only=read_only))


@pytest.mark.parametrize("mount", ["", ", readOnly: true", ", readOnly: false"])
def test_claims_round_trip(mount):
    assert_round_trip(yaml.safe_load(claim_job("", mount)))
    assert_round_trip(yaml.safe_load(claim_job(", readOnly: false", mount)))


def test_a_read_only_claim_is_reported_and_stays_read_only():
    text = claim_job(", readOnly: true", "")
    (message,) = warned_at(text, launchers(text, "readOnly: true", "readOnly"))
    assert "persistentVolumeClaim.readOnly: true" in message
    blueprint, _ = imported(text)
    assert blueprint["spec"]["datasets"] == [{"name": "data", "mountPath": "/data", "pvc": "imagenet"}]


def test_two_mpijobs_with_the_same_name_are_an_error_naming_both(tmp_path):
    one = job()
    (tmp_path / "a.yaml").write_text(one + "---\n" + one.replace("name: train", "name: other"))
    (tmp_path / "b.yaml").write_text(one)
    done = run_mpigen("import", "a.yaml", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    line, column = pos(one, "name: train", "train")
    assert done.stderr.decode() == (f"b.yaml:{line}:{column}: error: MPIJob default/train is already defined at "
                                    f"a.yaml:{line}:{column}; each job becomes one blueprint, so names must be "
                                    "unique per namespace\n")
    # in another namespace it is another job
    (tmp_path / "b.yaml").write_text(one.replace("  name: train\n", "  name: train\n  namespace: ml\n"))
    assert run_mpigen("import", "a.yaml", "b.yaml", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("text, needle, sub, words", [
    (job(workers=0), "replicas: 0", "0", "at least 1"),
    (job(workers=200000), "replicas: 200000", "200000", "100000"),
    (job(workers=3).replace("replicas: 1", "replicas: 2"), "replicas: 2", "2", "exactly one launcher"),
    (job().replace("replicas: 2", "replicas: two"), "replicas: two", "two", "whole number"),
    (job(V1).replace("    Worker:\n      replicas: 2\n", "    Worker:\n"), "Worker:", None, "at least one worker"),
    (job().replace("    Worker:\n      replicas: 2\n", "    Worker:\n"), "Worker:", None, "Worker.replicas"),
    (job(V2BETA1, worker="      restartPolicy: Always\n"), "Always", None, "Never and OnFailure"),
    (job(V2BETA1).replace("    Worker:", "    Chief:\n      replicas: 1\n    Worker:"), "Chief:", None,
     "not a replica type"),
])
def test_replicas_out_of_range_are_errors_at_import(text, needle, sub, words):
    message = refused_at(text, needle, sub)
    assert words in message, message


@pytest.mark.parametrize("text, needle, sub, words", [
    (job().replace("- name: mpi-worker\n            image", "- image"), "- image: example.com/train:1\n", "image",
     "needs a name"),
    (job().replace("            image: example.com/train:1\n            command", "            command"),
     "- name: mpi-launcher", "name", "needs an image"),
    (job().replace('            command: [mpirun, -np, "2", --allow-run-as-root, python, train.py]\n', ""),
     "- name: mpi-launcher", "name", "no command"),
    (job().replace("  name: train", "  name: Train_1"), "Train_1", None, "DNS-1035"),
    (job(launcher_container="            env: [{name: NUM, value: 1}]\n"), "value: 1", "1", "strings"),
    (job(worker_container="            volumeMounts: [{name: nowhere, mountPath: /x}]\n"), "{name: nowhere", None,
     "names no volume"),
    (job(spec="  mpiDistribution: OpenMPI5\n"), "OpenMPI5", None, "unknown MPI implementation"),
])
def test_mpijobs_the_api_server_the_operator_or_mpigen_refuse_are_errors_at_their_line(text, needle, sub, words):
    message = refused_at(text, needle, sub)
    assert words in message, message


def test_a_template_without_containers_is_an_error():
    text = job().replace("""          containers:
          - name: mpi-worker
            image: example.com/train:1
""", "          containers: []\n")
    assert "no container" in refused_at(text, "containers: []", "containers")


@pytest.mark.parametrize("container, needle", [
    ("            env: [{name: KEY, valueFrom: {secretKeyRef: {name: s, key: k}}}]\n", ("valueFrom", None)),
    ("            resources: {limits: {cpu: 2}, requests: {cpu: 1}}\n", ("cpu: 1", "cpu")),
    ("            resources: {requests: {cpu: 1}}\n", ("cpu: 1", "cpu")),
    ("            resources: {limits: {nvidia.com/gpu: 1}}\n", ("nvidia.com/gpu: 1", "nvidia.com/gpu")),
    ("          hostname: fixed\n", ("hostname", None)),
    ("          serviceAccountName: mine\n", None),  # the v1alpha2 controller writes its own over it
    ("            terminationMessagePolicy: FallbackToLogsOnError\n", None),  # into podTemplatePatch
    ("            resources: {limits: {cpu: 2}, requests: {cpu: 2}}\n", None),  # what Kubernetes sets anyway
])
def test_what_a_launcher_says_is_carried_or_reported_at_its_line(container, needle):
    text = job(launcher_container=container)
    if needle is None:
        assert_round_trip(yaml.safe_load(text))
    else:
        warned_at(text, needle)


@pytest.mark.parametrize("mount, volume, sub", [
    ("{name: d, mountPath: /d, subPath: x}", "{name: d, persistentVolumeClaim: {claimName: c}}", "subPath"),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d}}", "hostPath"),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d, type: File}}", "name: d, hostPath"),
    ("{name: d, mountPath: /d}", "{name: d, emptyDir: {}}", None),  # a scratch dataset (issue 49)
    ("{name: d, mountPath: /d}", "{name: d, emptyDir: {medium: Memory, sizeLimit: 2Gi}}", None),
    ("{name: d, mountPath: /d}", "{name: d, emptyDir: {medium: HugePages}}", "name: d, emptyDir"),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, emptyDir: {}}", "readOnly"),
    ("{name: d, mountPath: /d}", "{name: d, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
     "storageClassName: nvme, resources: {requests: {storage: 10Gi}}}}}}", None),
    ("{name: d, mountPath: /d}", "{name: d, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteMany], "
     "resources: {requests: {storage: 10Gi}}}}}}", "accessModes"),
    ("{name: d, mountPath: /d}", "{name: d, ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
     "volumeMode: Block, resources: {requests: {storage: 10Gi}}}}}}", "volumeMode"),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, configMap: {name: c, items: [{key: a, path: b}]}}",
     "items"),
    ("{name: d, mountPath: /d}", "{name: d, configMap: {name: c}}", "name: d, mountPath"),  # not readOnly
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, configMap: {name: c, defaultMode: 420}}", None),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, secret: {secretName: c}}", None),
    ("{name: d, mountPath: /d}", "{name: d, nfs: {server: fs, path: /x}}", None),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d, type: Directory}}", None),
    ("{name: d, mountPath: /d}", "{name: d, csi: {driver: a.b, volumeAttributes: {bucket: b1}}}", None),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, csi: {driver: a.b, readOnly: true}}", None),
])
def test_volumes_are_carried_or_reported_at_the_launchers_line(mount, volume, sub):
    """Volumes mounted alike on both roles: a dataset when its form is one, else reported."""
    lines = f"            volumeMounts: [{mount}]\n          volumes: [{volume}]\n"
    text = job(launcher_container=lines, worker_container=lines)
    if sub is None:
        assert_round_trip(yaml.safe_load(text))
        return
    at = launchers(text, mount if sub in mount else volume, sub)
    if sub.startswith("name: d, "):
        at = (at[0], at[1] - 1)  # the list entry's mapping
    warned_at(text, at)


@pytest.mark.parametrize("api, spec, needle", [
    (V2BETA1, "  mpiDistribution: IntelMPI\n", "mpiDistribution"),  # not a v2beta1 field: not carried
    (V1ALPHA2, "  runPolicy: {ttlSecondsAfterFinished: 60}\n", "ttlSecondsAfterFinished"),
    (V1ALPHA2, "  runPolicy: {cleanPodPolicy: All}\n", "cleanPodPolicy"),
    (V1, "  runPolicy: {managedBy: kueue.x-k8s.io/multikueue}\n", "managedBy"),
    (V2BETA1, "  runLauncherAsWorker: true\n", "runLauncherAsWorker"),
])
def test_spec_fields_an_operator_does_not_read_or_a_blueprint_cannot_carry_are_reported(api, spec, needle):
    text = job(api, spec=spec)
    warned_at(text, needle)
    blueprint, _ = imported(text)
    assert blueprint["spec"]["mpiImplementation"] == "OpenMPI"


@pytest.mark.parametrize("api, spec", [
    (V1ALPHA2, "  backoffLimit: 3\n  activeDeadlineSeconds: 60\n  cleanPodPolicy: Running\n"),
    (V1ALPHA2, "  runPolicy: {backoffLimit: 2, activeDeadlineSeconds: 9}\n  backoffLimit: 3\n"),
    (V1ALPHA2, "  slotsPerWorker: 2\n  mpiDistribution: MPICH\n"),
    (V2BETA1, "  runPolicy: {backoffLimit: 2, ttlSecondsAfterFinished: 60, cleanPodPolicy: Running}\n"),
    (V2BETA1, "  mpiImplementation: Intel\n  launcherCreationPolicy: WaitForWorkersReady\n"),
    (V2BETA1, "  sshAuthMountPath: /home/mpiuser/.ssh\n  slotsPerWorker: 4\n"),
    (V1, "  runPolicy: {activeDeadlineSeconds: 100}\n  cleanPodPolicy: All\n"),
])
def test_spec_fields_round_trip(api, spec):
    text = job(api, spec=spec)
    for slots in ("2", "4"):  # -np is the slots of the two workers (validate.process_count)
        if f"slotsPerWorker: {slots}" in spec:
            text = text.replace('"2", --allow', f'"{2 * int(slots)}", --allow')
    assert_round_trip(yaml.safe_load(text))
