"""Kueue, natively (shared/reference/targets.md 3.1 and 3.2; mpi-operator.md on runPolicy.managedBy):
the keys mpigen writes for a queued job, on the JobSet and on the v2beta1 MPIJob."""

from __future__ import annotations

import yaml

from tests.support.paths import BLUEPRINTS
from tests.support.rendering import render_text

REQUESTS = ("queue: team-a-gpus\n    priorityClass: high\n    multiKueue: true\n"
            "    topology: {required: cloud.google.com/gce-topology-block}")


def queued(target: str) -> list[dict]:
    text = (BLUEPRINTS / "kueue-queued.yaml").read_text().replace("queue: team-a-gpus", REQUESTS)
    return render_text(text, target=target)


def test_kueue_sees_one_workload():
    """3.2: the queue and priority labels on the JobSet alone (one Workload with a PodSet per
    replicated job); 3.1: the topology request on the rank pods' templates; MultiKueue's
    managedBy (1.1); no suspend of mpigen's (Kueue's webhook sets it)."""
    objects = queued("jobset")
    [jobset] = [o for o in objects if o["kind"] == "JobSet"]
    labels = jobset["metadata"]["labels"]
    assert labels["kueue.x-k8s.io/queue-name"] == "team-a-gpus" and labels["kueue.x-k8s.io/priority-class"] == "high"
    assert jobset["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue" and "suspend" not in jobset["spec"]
    text = yaml.safe_dump([o for o in objects if o is not jobset] + [jobset["spec"]])
    assert "kueue.x-k8s.io/queue-name" not in text and "priority-class" not in text
    for rjob in jobset["spec"]["replicatedJobs"]:
        annotations = rjob["template"]["spec"]["template"].get("metadata", {}).get("annotations", {})
        topology = annotations.get("kueue.x-k8s.io/podset-required-topology")
        assert topology == ("cloud.google.com/gce-topology-block" if rjob["name"] == "worker" else None)



def test_a_v2beta1_mpijob_carries_the_same_requests():
    """Kueue's MPIJob integration: labels on the MPIJob, the topology request on the workers'
    template (the launcher runs no ranks here), MultiKueue in runPolicy.managedBy."""
    [mpijob] = [o for o in queued("mpijob") if o["kind"] == "MPIJob"]
    assert mpijob["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "high"
    assert mpijob["spec"]["runPolicy"]["managedBy"] == "kueue.x-k8s.io/multikueue"
    replicas = mpijob["spec"]["mpiReplicaSpecs"]
    worker = replicas["Worker"]["template"]["metadata"]["annotations"]
    assert worker["kueue.x-k8s.io/podset-required-topology"] == "cloud.google.com/gce-topology-block"
    assert "kueue.x-k8s.io/podset-required-topology" not in yaml.safe_dump(replicas["Launcher"])
