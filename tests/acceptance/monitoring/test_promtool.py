"""The rendered alerts, under the Prometheus project's own checks: `promtool check rules` on every
rule file mpigen renders, and `promtool test rules` on a job of CPUs only (its workers' CPU, from
the kubelet). Every alert through every state of a job: test_alert_states.py.

promtool is Debian's `prometheus` package's (`make install-test` installs it). The series'
names and labels come from their exporters' sources, not from mpigen:
- kube-state-metrics v2.20.0, docs/metrics/workload/job-metrics.md (kube_job_failed and
  kube_job_complete {namespace, job_name, condition="true|false|unknown"}; kube_job_status_failed
  {namespace, job_name, reason}: internal/store/job.go gives reason="" while the Job has no Failed
  condition; kube_job_status_suspended, kube_job_created {namespace, job_name}) and pod-metrics.md
  (kube_pod_status_phase {namespace, pod, uid, phase}; kube_pod_container_status_waiting_reason
  {namespace, pod, uid, container, reason});
- JobSet v0.12.0, pkg/metrics/metrics.go: jobset_failed_total {jobset_name, namespace};
- Kueue v0.19.2, pkg/metrics/metrics.go: kueue_local_queue_pending_workloads {name, namespace,
  status="active|inadmissible", replica_role} (LocalQueueMetrics, on by default since v0.17,
  pkg/features/kube_features.go);
- NVIDIA dcgm-exporter 4.5.3-4.8.2, etc/default-counters.csv (DCGM_FI_DEV_GPU_UTIL, in %) and
  README.md / internal/pkg/transformation/const.go: {gpu, UUID, pod, namespace, container};
- kube-state-metrics' custom resource state, as docs/monitoring/kube-state-metrics-crs.yaml
  configures it: kube_customresource_jobset_restarts {customresource_group, customresource_kind,
  customresource_version, namespace, name}.

The pods' names are the controllers' (a test fact, not mpigen's patterns): a StatefulSet's pod
is <set>-<ordinal>, a Job's <job>-<5 characters>, an Indexed Job's <job>-<index>-<5 characters>;
JobSet names a child Job <jobset>-<replicated job>-<index> (v0.12.0 pkg/util/placement/placement.go
GenJobName); the Trainer's JobSet is its TrainJob's name, with replicated jobs launcher and node."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.golden import examples_for
from tests.support.promtool import promtool

ROOT = Path(__file__).resolve().parents[3]
OVERLAY = "monitored"  # overlays/monitored: prod, with monitoring on and notStartedFor: 2h
JOB = ("team-a", "vit-sweep-7")  # 2 workers of 8 GPUs each, queued in the LocalQueue team-a-gpus
CPU_JOB = ("hpc", "intel-pi")  # workers of CPUs only
TARGETS = ("static", "jobset", "trainjob", "mpijob")


def rendered(target: str) -> list[dict]:
    done = run_mpigen("render", *examples_for(target), "--stdout", "--overlay", OVERLAY, "--target", target,
                      cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@dataclass(frozen=True)
class Names:
    """What the cluster runs the job as, by the controllers' naming."""

    launcher_job: str | None
    launcher_pod: str
    worker_pods: tuple[str, ...]
    counted_set: str | None  # the JobSet the JobSet controller counts
    budget: int | None


def names(target: str, objects: list[dict], job: tuple[str, str] = JOB) -> Names:
    mine = [o for o in objects if o["metadata"].get("namespace") == job[0]
            and o["metadata"].get("labels", {}).get("mpigen.dev/job") == job[1]]
    kind = {"static": "Job", "jobset": "JobSet", "trainjob": "TrainJob", "mpijob": "MPIJob"}[target]
    top = next(o for o in mine if o["kind"] == kind)
    name = top["metadata"]["name"]
    if target == "static":
        workers = next(o["metadata"]["name"] for o in mine if o["kind"] == "StatefulSet")
        return Names(name, f"{name}-x7k2p", (f"{workers}-0", f"{workers}-1"), None, top["spec"]["backoffLimit"])
    if target == "mpijob":
        return Names(f"{name}-launcher", f"{name}-launcher-x7k2p", (f"{name}-worker-0", f"{name}-worker-1"), None,
                     top["spec"]["runPolicy"]["backoffLimit"])
    workers = "worker" if target == "jobset" else "node"
    spec = top["spec"] if target == "jobset" else next(
        o for o in mine if o["kind"] == "TrainingRuntime")["spec"]["template"]["spec"]
    return Names(f"{name}-launcher-0", f"{name}-launcher-0-0-x7k2p",
                 (f"{name}-{workers}-0-0-b4c9d", f"{name}-{workers}-0-1-q8w2z"), name,
                 spec["failurePolicy"]["maxRestarts"])


def series(metric: str, values: str, namespace: str = JOB[0], **labels: str) -> dict:
    inner = ", ".join(f'{key}="{value}"' for key, value in {"namespace": namespace, **labels}.items())
    return {"series": f"{metric}{{{inner}}}", "values": values}


def phases(pod: str, phase: str, steps: int = 180, namespace: str = JOB[0]) -> list[dict]:
    """kube-state-metrics' five kube_pod_status_phase series of a pod: 1 for its phase."""
    return [series("kube_pod_status_phase", f"{int(p == phase)}x{steps}", namespace, pod=pod, uid=f"uid-{pod}", phase=p)
            for p in ("Pending", "Running", "Succeeded", "Failed", "Unknown")]


def expected(rule: dict, filled: dict[str, str], value: str | None) -> dict:
    """The alert a firing case gives: the rule's labels, the series' own, its annotations expanded."""
    labels = {**rule["labels"]}
    if "reason" in filled:
        labels["reason"] = filled["reason"]
    annotations = {}
    for key, text in rule["annotations"].items():
        text = text.replace("{{ $labels.reason }}", filled.get("reason", ""))
        annotations[key] = text.replace("{{ $value }}", filled.get("value", value or ""))
    return {"exp_labels": labels, "exp_annotations": annotations}


@pytest.fixture(scope="module", params=TARGETS)
def target_render(request) -> tuple[str, list[dict]]:
    return request.param, rendered(request.param)


def rule_of(objects: list[dict]) -> dict:
    (rule,) = [o for o in objects if o["kind"] == "PrometheusRule"]
    return rule


def test_every_rendered_rule_file_passes_promtool_check(target_render, tmp_path):
    target, objects = target_render
    rule = rule_of(objects)
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    done = promtool("check", "rules", "rules.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {sum(len(g['rules']) for g in rule['spec']['groups'])} rules found" in done.stdout


def test_idle_cpu_workers_fire_and_busy_ones_do_not(target_render, tmp_path):
    """A job of CPUs only: its workers' CPU, from the kubelet, while its launcher runs."""
    target, objects = target_render
    group = next(g for g in rule_of(objects)["spec"]["groups"] if g["name"] == f"mpigen/{CPU_JOB[0]}/{CPU_JOB[1]}")
    (rule,) = [r for r in group["rules"] if r["alert"] == "MpigenWorkersIdle"]
    n = names(target, objects, CPU_JOB)
    tests = []
    for firing in (True, False):
        launcher = phases(n.launcher_pod, "Running", 60, CPU_JOB[0])
        cpu = [series("pod_cpu_usage_seconds_total", "0x60" if firing else "0+60x60", namespace=CPU_JOB[0], pod=pod)
               for pod in n.worker_pods]
        tests.append({"interval": "1m", "input_series": launcher + cpu, "alert_rule_test": [
            {"eval_time": "40m", "alertname": "MpigenWorkersIdle",
             "exp_alerts": [expected(rule, {"value": "0"}, None)] if firing else []}]})
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": [group]}))
    (tmp_path / "test.yaml").write_text(yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m",
                                                        "tests": tests}))
    done = promtool("test", "rules", "test.yaml", cwd=tmp_path)
    assert done.returncode == 0, f"{target}:\n{done.stdout}{done.stderr}"
