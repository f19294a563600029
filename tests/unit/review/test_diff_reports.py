"""`mpigen diff`'s reports: the JSON structure, Markdown with the immutable warning first,
long values shortened in text only, and unknown formats refused.

The base is the real golden output folder (golden/static); every case edits a copy of it.
"""

from __future__ import annotations

import json

import pytest

from mpigen.review.diff.compare import compare
from tests.support.golden_edits import CM, JOB, STS, edit, golden


def test_json_structure():
    old = golden()
    new = edit(old, JOB, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")
    new = edit(new, STS, "replicas: 4", "replicas: 8")
    text = compare(old, new).format("json")
    assert text == compare(old, new).format("json")  # deterministic
    data = json.loads(text)
    assert data["differs"] is True and data["immutable"] is True
    assert data["summary"] == {"jobs": 1, "added": 0, "removed": 0, "changed": 2, "immutable": 1}
    job = data["jobs"][0]
    assert sorted(job) == ["added", "changed", "endsRun", "environment", "gpus", "immutable", "job", "namespace",
                           "newRun", "removed", "restartsWorkers", "slots", "workers"]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 32}
    assert job["newRun"] is False and job["restartsWorkers"] is False
    assert job["changed"][0]["kind"] == "Job" and job["changed"][0]["file"] == JOB
    assert job["changed"][1]["fields"] == [{"path": "spec.replicas", "op": "change", "old": 4, "new": 8}]
    assert job["immutable"][0]["object"] == "Job ml-team/resnet50-imagenet-launcher"
    assert job["immutable"][0]["path"] == "spec.template"
    assert job["immutable"][0]["message"].startswith("Kubernetes refuses to change spec.template of Job")


def test_markdown_puts_the_immutable_warning_right_after_the_overview():
    old = golden()
    new = edit(old, JOB, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")
    new = edit(new, STS, "replicas: 4", "replicas: 8")
    text = compare(old, new).format("markdown")
    lines = text.splitlines()
    assert lines[0] == "### mpigen diff: `old` → `new`"
    warning = lines.index("> [!WARNING]")
    assert lines[2:warning] == ["- **Jobs changed**: 1", "- **GPUs of these jobs**: 32 → 64 (+32)",
                                "- **Immutable changes**: 1 in 1 job: Argo CD and Flux fail to sync them",
                                "- **Restarts**: none", "- **Changed jobs**: ml-team/resnet50-imagenet", ""]
    assert "⚠️" in lines[warning + 1]
    assert text.index("[!WARNING]") < text.index("| Job |") < text.index("<details>")
    assert "| ml-team/resnet50-imagenet |  | +0 −0 ~2 | **4 → 8** | **32 → 64** |  | ⚠️ immutable |" in lines
    assert "- spec.replicas: 4\n+ spec.replicas: 8\n" in text and "```diff\n" in text


def test_long_values_are_shortened_in_text_but_not_json():
    old = golden()
    long = "x" * 200
    new = edit(old, CM, "team: vision", f"team: {long}")
    report = compare(old, new)
    line = next(l for l in report.format("text").splitlines() if "metadata.labels.team" in l)
    assert line.endswith('-> "' + "x" * 76 + "...")
    assert json.loads(report.format("json"))["jobs"][0]["changed"][0]["fields"][0]["new"] == long


def test_unknown_format_is_refused():
    with pytest.raises(ValueError):
        compare({}, {}).format("yaml")
