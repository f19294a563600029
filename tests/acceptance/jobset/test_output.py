"""What the jobset target renders, against the facts of shared/reference/targets.md (each
test names its section), never against mpigen's own functions: the JobSet webhook's
defaults (1.2), dependsOn's rules (1.6), the pod host names and the length check (1.4),
the key strategies (no private key anywhere), and the RBAC."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.support.paths import BLUEPRINTS, GOLDEN
from tests.support.rendering import render_text

GOLDEN_STREAMS = ("jobset.yaml", "jobset-argocd.yaml", "jobset-flux.yaml")


def golden_objects(stream: str) -> list[dict]:
    return [o for o in yaml.safe_load_all((GOLDEN / stream).read_text()) if o]


JOBSETS = [pytest.param(o, id=f"{s}:{o['metadata']['name']}") for s in GOLDEN_STREAMS
           for o in golden_objects(s) if o["kind"] == "JobSet"]


def webhook_default(jobset: dict) -> dict:
    """JobSet's defaulting webhook (targets.md 1.2, JS:pkg/webhooks/jobset_webhook.go
    Default) and the CRD's defaults (replicas 1, groupName default, restartStrategy
    Recreate, ports' protocol TCP), transcribed."""
    js = yaml.safe_load(yaml.safe_dump(jobset))
    spec = js["spec"]
    spec.setdefault("successPolicy", {"operator": "All"})
    spec.setdefault("startupPolicy", {"startupPolicyOrder": "AnyOrder"})
    network = spec.setdefault("network", {})
    network.setdefault("enableDNSHostnames", True)
    network.setdefault("publishNotReadyAddresses", True)
    if "failurePolicy" in spec:
        spec["failurePolicy"].setdefault("restartStrategy", "Recreate")
        for i, rule in enumerate(spec["failurePolicy"].get("rules", [])):
            rule.setdefault("name", f"failurePolicyRule{i}")
    for rjob in spec["replicatedJobs"]:
        rjob.setdefault("replicas", 1)
        rjob.setdefault("groupName", "default")
        job = rjob["template"]["spec"]
        job.setdefault("completionMode", "Indexed")
        pod = job["template"]["spec"]
        pod.setdefault("restartPolicy", "OnFailure")
        for container in pod.get("containers", []) + pod.get("initContainers", []):
            for port in container.get("ports", []):
                port.setdefault("protocol", "TCP")
    return js


@pytest.mark.parametrize("jobset", JOBSETS)
def test_every_field_the_webhook_defaults_is_written(jobset):
    """Applied in the cluster, the JobSet is what Git holds: nothing for Argo CD or Flux to
    show as drift."""
    assert webhook_default(jobset) == jobset


@pytest.mark.parametrize("jobset", JOBSETS)
def test_depends_on_follows_the_controllers_rules(jobset):
    """1.6: not on the first replicated job, naming only earlier ones, a single item; and
    1.1: the deprecated InOrder startup policy is not used beside dependsOn."""
    names = [r["name"] for r in jobset["spec"]["replicatedJobs"]]
    assert "dependsOn" not in jobset["spec"]["replicatedJobs"][0]
    for i, rjob in enumerate(jobset["spec"]["replicatedJobs"]):
        for dependency in rjob.get("dependsOn", []):
            assert len(rjob["dependsOn"]) == 1 and dependency["name"] in names[:i]
            assert dependency["status"] in ("Ready", "Complete")
    assert jobset["spec"]["startupPolicy"] == {"startupPolicyOrder": "AnyOrder"}
    assert names[-2:] == ["worker", "launcher"]
    assert jobset["spec"]["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["launcher"]}


@pytest.mark.parametrize("jobset", JOBSETS)
def test_pod_names_pass_the_webhooks_length_check(jobset):
    """1.4: GenPodName(js, rj, replicas-1, completions-1) + "-abcde" is a DNS-1035 label."""
    name = jobset["metadata"]["name"]
    for rjob in jobset["spec"]["replicatedJobs"]:
        longest = f"{name}-{rjob['name']}-{rjob['replicas'] - 1}-{rjob['template']['spec']['completions'] - 1}-abcde"
        assert len(longest) <= 63 and re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])?", longest)


def objects_of(stream: str, jobset: dict) -> list[dict]:
    return [o for o in golden_objects(stream) if o["metadata"].get("namespace") == jobset["metadata"]["namespace"]
            and o["metadata"]["name"].startswith(jobset["metadata"]["name"])]


@pytest.mark.parametrize("stream", GOLDEN_STREAMS)
def test_the_hostfile_names_the_pods_jobset_creates(stream):
    """1.4: the worker pods' host names are <js>-worker-0-<i> in the subdomain <js> (the
    JobSet's name when network.subdomain is unset), one line per pod of the worker job."""
    for obj in golden_objects(stream):
        if obj["kind"] != "JobSet":
            continue
        name = obj["metadata"]["name"]
        assert "subdomain" not in obj["spec"]["network"]
        worker = next(r for r in obj["spec"]["replicatedJobs"] if r["name"] == "worker")
        pods = worker["replicas"] * worker["template"]["spec"]["parallelism"]
        config = next(o for o in golden_objects(stream) if o["kind"] == "ConfigMap"
                      and o["metadata"]["name"] == f"{name}-config")
        hosts = [re.split(r"[ :]", line)[0] for line in config["data"]["hostfile"].splitlines()]
        workers = [h for h in hosts if "-launcher-" not in h]
        assert workers == [f"{name}-worker-0-{i}.{name}" for i in range(pods)]
        assert hosts[:len(hosts) - len(workers)] in ([], [f"{name}-launcher-0-0"])


def test_no_private_key_is_ever_rendered():
    """Neither strategy puts key material in the output: no Secret, no PEM block."""
    for stream in GOLDEN_STREAMS:
        text = (GOLDEN / stream).read_text()
        assert "PRIVATE KEY" not in text and "\nkind: Secret\n" not in text


def test_the_generator_may_create_secrets_and_touch_only_its_own():
    """The default strategy's Role: `create` unscoped (Kubernetes cannot limit it by name),
    every other verb limited to the run's Secret; only the kubectl containers get a token."""
    objects = render_text((BLUEPRINTS / "tensorflow-mnist.yaml").read_text(), target="jobset")
    [role] = [o for o in objects if o["kind"] == "Role"]
    for rule in role["rules"]:
        assert rule["resources"] == ["secrets"]
        assert rule.get("resourceNames") == (None if rule["verbs"] == ["create"] else ["tensorflow-mnist-ssh"])
    [jobset] = [o for o in objects if o["kind"] == "JobSet"]
    keygen = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert keygen["automountServiceAccountToken"] is False
    with_token = [c["name"] for c in keygen["initContainers"] + keygen["containers"]
                  if any(m["name"] == "kube-api-access" for m in c.get("volumeMounts", []))]
    assert with_token == ["delete-old-key", "publish-key"]


def test_a_platform_key_needs_no_generator():
    text = (BLUEPRINTS / "tensorflow-mnist.yaml").read_text().replace("spec:\n", "spec:\n  ssh: {keySecret: team-ssh}\n", 1)
    objects = render_text(text, target="jobset")
    assert sorted(o["kind"] for o in objects) == ["ConfigMap", "JobSet"]
    [jobset] = [o for o in objects if o["kind"] == "JobSet"]
    assert [r["name"] for r in jobset["spec"]["replicatedJobs"]] == ["worker", "launcher"]
    assert "team-ssh" in yaml.safe_dump(jobset) and "tensorflow-mnist-ssh" not in yaml.safe_dump(jobset)


@pytest.mark.parametrize("runs_ranks", [False, True])
def test_master_addr_is_rank_0s_pod_by_a_name_every_pod_resolves(runs_ranks):
    """torch.distributed's rendezvous (PyTorch, DeepSpeed) at rank 0's host: the first host of
    the hostfile, by its DNS name in the JobSet's subdomain (1.4), never a StatefulSet's pod
    name, which no JobSet pod has."""
    text = (BLUEPRINTS / "pytorch-mpirun.yaml").read_text()
    if runs_ranks:
        text = text.replace("spec:\n", "spec:\n  launcher: {runAsWorker: true}\n", 1)
    objects = render_text(text, target="jobset")
    [jobset] = [o for o in objects if o["kind"] == "JobSet"]
    name = jobset["metadata"]["name"]
    launcher = jobset["spec"]["replicatedJobs"][-1]["template"]["spec"]["template"]["spec"]["containers"][0]
    master = next(e["value"] for e in launcher["env"] if e["name"] == "MASTER_ADDR")
    assert master == (f"{name}-launcher-0-0.{name}" if runs_ranks else f"{name}-worker-0-0.{name}")
