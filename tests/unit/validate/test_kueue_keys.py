"""Kueue's keys a blueprint cannot give (mpigen.validate.kueue) and Kueue Workloads among
mpigen's input (mpigen.load.workloads), each refused at its line on every target.

What Kueue v0.19.2 does with them: `kueue.x-k8s.io/elastic-job: "true"` sends any kind down
the reconciler's workload-slice path (pkg/controller/jobframework/reconciler.go
WorkloadSliceEnabled -> pkg/workloadslicing/workloadslicing.go Enabled, the annotation's value
compared to "true"), which only the batch Job and Ray integrations can scale;
`kueue.x-k8s.io/prebuilt-workload-name`, a label or an annotation
(pkg/controller/constants/constants.go PrebuiltWorkloadLabel, PrebuiltWorkloadAnnotation),
makes ensureOneWorkload wait for that Workload and ignore it once another object (an earlier
run) controls it."""

from __future__ import annotations

import pytest

from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved
from tests.support.blueprints import blueprint_text
from tests.support.text import pos

ELASTIC, PREBUILT = "kueue.x-k8s.io/elastic-job", "kueue.x-k8s.io/prebuilt-workload-name"


def _errors(text: str) -> list[tuple[tuple[int, int], str]]:
    (doc,) = parse(text, "job.yaml")
    blueprint, diagnostics = validate_document(doc, Reserved())
    return [((d.mark.line, d.mark.column), d.message) for d in diagnostics if d.severity == "error"]


@pytest.mark.parametrize("where", ["labels", "annotations"])
@pytest.mark.parametrize("key, reason", [(ELASTIC, "only for a batch Job and Ray's kinds"),
                                         (PREBUILT, "waits for a Workload of that name")])
def test_kueue_s_elastic_and_prebuilt_keys_are_refused_at_their_key_on_the_objects(where, key, reason):
    text = blueprint_text("job", **{where: {key: "true" if key == ELASTIC else "wl"}})
    ((mark, message),) = _errors(text)
    assert mark == pos(text, f'"{key}"')
    assert message.startswith(f"metadata.{where}: {key}: ") and reason in message


def test_they_are_refused_on_a_role_s_pods_too():
    text = blueprint_text("job", podTemplatePatch={"worker": {"metadata": {"annotations": {PREBUILT: "wl"}}}})
    ((mark, message),) = _errors(text)
    assert mark == pos(text, f'"{PREBUILT}"')
    assert message.startswith(f"spec.podTemplatePatch.worker.metadata.annotations: {PREBUILT}: ")


def test_kueue_s_other_keys_are_kept():
    assert _errors(blueprint_text("job", annotations={"kueue.x-k8s.io/elastic": "true"},
                                  labels={"kueue.x-k8s.io/max-exec-time-seconds": "3600"})) == []
