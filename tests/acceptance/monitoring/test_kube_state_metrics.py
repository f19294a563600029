"""docs/monitoring/kube-state-metrics.yaml, the custom resource state configuration of the kinds
the targets write: valid under kube-state-metrics v2.20.0's format (the schema transcribed from its
source in tests/support/fixtures, which names the files), for kinds the targets write, and the
series docs/monitoring.md shows for a rendered JobSet are the ones it yields.

The series are computed as kube-state-metrics v2.20.0 computes a gauge
(pkg/customresourcestate/registry_factory.go: a path to a list or map gives one series per
element, labelsFromPath and valueFrom relative to it, labelFromKey the map key; toFloat64: "True"
is 1, "False" and "Unknown" 0; nilIsZero), named <metricNamePrefix, default kube_customresource>_<name>
and labelled customresource_group, customresource_kind and customresource_version
(docs/metrics/extend/customresourcestate-metrics.md)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from mpigen.render.targets import kind_facts

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "docs" / "monitoring" / "kube-state-metrics.yaml"
SCHEMA = ROOT / "tests" / "support" / "fixtures" / "kube-state-metrics-customresourcestate.schema.json"
GOLDEN_JOBSET = ROOT / "golden" / "jobset" / "team-a" / "jobset-vit-sweep-7.yaml"
# What the JobSet controller v0.12.0 writes into status two restarts in, its jobs ready again
# (api/jobset/v1alpha2/jobset_types.go JobSetStatus, ReplicatedJobStatus and the condition type
# RestartingJobSet; pkg/controllers/jobset_controller.go sets it False with pkg/constants' JobsReady).
RESTARTED = {"type": "RestartingJobSet", "status": "False", "reason": "JobsReady", "message": "all jobs are ready",
             "lastTransitionTime": "2026-11-27T10:00:00Z"}


def status(jobset: dict) -> dict:
    """Two restarts in: the key generator done, the workers and the launcher running."""
    replicated = [{"name": r["name"], "ready": 0 if r["name"] == "keygen" else 1, "failed": 0, "suspended": 0,
                   "succeeded": 1 if r["name"] == "keygen" else 0, "active": 0 if r["name"] == "keygen" else 1}
                  for r in jobset["spec"]["replicatedJobs"]]
    return {"restarts": 2, "restartsCountTowardsMax": 2, "conditions": [RESTARTED], "replicatedJobsStatus": replicated}


def config() -> dict:
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_the_configuration_is_valid_under_kube_state_metrics_format():
    validator().validate(config())


@pytest.mark.parametrize("break_it", [
    lambda c: c["spec"]["resources"][0]["metrics"][0]["each"]["gauge"].update(valuefrom=["status"]),
    lambda c: c["spec"]["resources"][0]["metrics"][0]["each"].pop("gauge"),
    lambda c: c["spec"]["resources"][0]["metrics"][0]["each"].update(type="Counter"),
    lambda c: c["spec"]["resources"][0].pop("groupVersionKind"),
], ids=["misspelt key", "gauge without its block", "a type the config cannot have", "no kind"])
def test_the_schema_refuses_what_kube_state_metrics_would_drop_or_refuse(break_it):
    broken = copy.deepcopy(config())
    break_it(broken)
    assert list(validator().iter_errors(broken))


def test_every_kind_it_watches_is_one_a_target_writes():
    for resource in config()["spec"]["resources"]:
        gvk = resource["groupVersionKind"]
        assert kind_facts(f"{gvk['group']}/{gvk['version']}", gvk["kind"]) is not None, gvk


def _walk(value, path: list[str]):
    for step in path:
        if value is None:
            return None
        value = value[int(step)] if isinstance(value, list) else value.get(step)
    return value


def _number(value, nil_is_zero: bool) -> float:
    if value is None:
        assert nil_is_zero
        return 0.0
    if isinstance(value, str):
        return 1.0 if value.lower() in ("true", "yes") else 0.0 if value.lower() in ("false", "no", "unknown") \
            else float(value)
    return float(value)


def series_of(obj: dict, resource: dict) -> list[str]:
    """The gauges a resource of the configuration yields for one object, as exposition lines."""
    gvk = resource["groupVersionKind"]
    common = {"customresource_group": gvk["group"], "customresource_kind": gvk["kind"],
              "customresource_version": gvk["version"],
              **{label: _walk(obj, path) for label, path in resource.get("labelsFromPath", {}).items()}}
    lines = []
    for metric in resource["metrics"]:
        gauge = metric["each"]["gauge"]
        found = _walk(obj, gauge["path"])
        elements = (list(enumerate(found)) if isinstance(found, list) else list(found.items())
                    if isinstance(found, dict) and "valueFrom" in gauge else [(None, found)])
        for key, element in elements:
            labels = {**common, **{label: _walk(element, path) for label, path in gauge.get("labelsFromPath", {}).items()}}
            if "labelFromKey" in gauge:
                labels[gauge["labelFromKey"]] = key
            value = _walk(element, gauge["valueFrom"]) if "valueFrom" in gauge else element
            inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
            lines.append(f"kube_customresource_{metric['name']}{{{inner}}} {_number(value, gauge.get('nilIsZero', False)):g}")
    return lines


def test_docs_show_the_series_of_a_rendered_jobset():
    jobset = next(d for d in yaml.safe_load_all(GOLDEN_JOBSET.read_text(encoding="utf-8")) if d)
    jobset["status"] = status(jobset)
    resource = next(r for r in config()["spec"]["resources"] if r["groupVersionKind"]["kind"] == jobset["kind"])
    shown = re.search(r"```prometheus\n(kube_customresource_jobset.*?)```",
                      (ROOT / "docs" / "monitoring.md").read_text(encoding="utf-8"), re.S)
    assert shown, "docs/monitoring.md shows no JobSet series"
    assert shown.group(1).splitlines() == series_of(jobset, resource)
