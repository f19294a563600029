"""Blueprint -> objects under --target jobset: a small blueprint per case, and the fields of the
rendered objects that the JobSet API and controller fix (../shared/reference/targets.md §1, at
jobset v0.12.0), called through the public entry points (validate, compile_blueprint,
render_job) rather than the command line."""

from __future__ import annotations

import re

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_names import DNS1035_LABEL
from tests.support.rendering import by_kind, render_text

# (blueprint spec fields, workers' pods, slots per worker): slots are slotsPerWorker, else one
# per GPU, else 1 (the operator's and the Trainer's rule, targets.md §2.3).
CASES = [
    pytest.param({"workers": 1}, 1, 1, id="one-worker"),
    pytest.param({"workers": 3, "slotsPerWorker": 2}, 3, 2, id="slots"),
    pytest.param({"workers": 2, "gpusPerWorker": 4}, 2, 4, id="a-slot-per-gpu"),
    pytest.param({"workers": 2, "gpusPerWorker": 4, "slotsPerWorker": 1}, 2, 1, id="slots-over-gpus"),
    pytest.param({"workers": 12, "namespace": "ml"}, 12, 1, id="two-digit-pod-index"),
]


def jobset_of(name: str, spec: dict) -> tuple[dict, dict]:
    """The JobSet and the ConfigMap rendered for the blueprint `name` with these spec fields."""
    objects = by_kind(render_text(blueprint_text(name, **spec), target="jobset"))
    return objects["JobSet"], objects["ConfigMap"]


def replicated(jobset: dict) -> dict[str, dict]:
    return {job["name"]: job for job in jobset["spec"]["replicatedJobs"]}


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_the_workers_are_one_indexed_job_of_as_many_pods_as_workers(spec, pods, slots):
    workers = replicated(jobset_of("train", spec)[0])["worker"]
    assert workers["replicas"] == 1
    job = workers["template"]["spec"]
    assert (job["completionMode"], job["parallelism"], job["completions"]) == ("Indexed", pods, pods)


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_the_hostfile_names_each_worker_pod_by_its_stable_hostname(spec, pods, slots):
    """A pod of an Indexed Job is `<job name>-<completion index>`, the JobSet's child Job
    `<jobset>-<replicatedJob>-<job index>` (§1.4), in the subdomain named as the JobSet when
    network.subdomain is unset; one line per host, `<host> slots=<n>` (§2.5)."""
    jobset, config = jobset_of("train", spec)
    assert "subdomain" not in jobset["spec"]["network"]
    assert config["data"]["hostfile"].splitlines() == [f"train-worker-0-{i}.train slots={slots}" for i in range(pods)]


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_the_launcher_is_one_pod_the_run_succeeds_with(spec, pods, slots):
    """successPolicy All over [launcher]: the JobSet completes when the launcher does (§1.6)."""
    jobset = jobset_of("train", spec)[0]
    launcher = replicated(jobset)["launcher"]
    assert launcher["replicas"] == 1
    assert (launcher["template"]["spec"]["parallelism"], launcher["template"]["spec"]["completions"]) == (1, 1)
    assert jobset["spec"]["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["launcher"]}


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_each_dependency_names_one_earlier_replicated_job(spec, pods, slots):
    """dependsOn: not on the first replicatedJob, only earlier ones, a single item (§1.1, §1.6);
    the launcher waits for the workers to be Ready (the minimal JobSet of §1.7)."""
    jobs = jobset_of("train", spec)[0]["spec"]["replicatedJobs"]
    assert "dependsOn" not in jobs[0]
    for index, job in enumerate(jobs[1:], start=1):
        (depends,) = job["dependsOn"]
        assert depends["name"] in [earlier["name"] for earlier in jobs[:index]]
        assert depends["status"] in ("Ready", "Complete")
    assert replicated({"spec": {"replicatedJobs": jobs}})["launcher"]["dependsOn"] == [
        {"name": "worker", "status": "Ready"}]


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_every_pod_template_says_its_restart_policy(spec, pods, slots):
    """The defaulting webhook turns an empty restartPolicy into OnFailure (§1.2), which would
    restart a failed rank in place; every pod of the run is Never."""
    for job in jobset_of("train", spec)[0]["spec"]["replicatedJobs"]:
        assert job["template"]["spec"]["template"]["spec"]["restartPolicy"] == "Never", job["name"]


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_names_are_what_the_jobset_webhook_accepts(spec, pods, slots):
    """groupName and the longest child Job and pod names are DNS-1035 labels (§1.1, §1.4)."""
    jobset = jobset_of("train", spec)[0]
    for job in jobset["spec"]["replicatedJobs"]:
        assert DNS1035_LABEL.fullmatch(job["groupName"]), job["groupName"]
        pod = f"train-{job['name']}-{job['replicas'] - 1}-{job['template']['spec']['completions'] - 1}-abcde"
        assert len(pod) <= 63 and DNS1035_LABEL.fullmatch(pod), pod


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_dns_hostnames_are_on_for_the_hostfile_to_resolve(spec, pods, slots):
    """The headless Service exists only with enableDNSHostnames, and publishNotReadyAddresses
    lets a worker be reached before it is Ready (§1.4, §1.7)."""
    network = jobset_of("train", spec)[0]["spec"]["network"]
    assert network["enableDNSHostnames"] is True and network["publishNotReadyAddresses"] is True


@pytest.mark.parametrize("spec, pods, slots", CASES)
def test_every_object_is_in_the_blueprints_namespace_and_named_after_the_job(spec, pods, slots):
    """The blueprint's namespace, else `default` (a namespaced object's own default)."""
    objects = render_text(blueprint_text("train", **spec), target="jobset")
    assert {o["metadata"].get("namespace") for o in objects} == {spec.get("namespace", "default")}
    assert all(re.fullmatch(r"train(-[a-z-]+)?", o["metadata"]["name"]) for o in objects)
