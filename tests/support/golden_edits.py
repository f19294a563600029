"""The golden static folder as a dict of files, and exact edits of it: the base of the `mpigen diff`
cases (tests/unit/review/test_diff_*.py)."""

from __future__ import annotations

from pathlib import Path


GOLDEN = Path(__file__).resolve().parents[2] / "golden" / "static"
RESNET = "ml-team/"
STS = RESNET + "statefulset-resnet50-imagenet-worker.yaml"
JOB = RESNET + "job-resnet50-imagenet-launcher.yaml"
CM = RESNET + "configmap-resnet50-imagenet-config.yaml"
MNIST = "default/"


def golden() -> dict[str, str]:
    return {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(GOLDEN.rglob("*")) if p.is_file()}


def edit(files: dict[str, str], path: str, old: str, new: str) -> dict[str, str]:
    """A copy of files with one exact, unique piece of text replaced."""
    assert files[path].count(old) == 1, (path, old)
    return {**files, path: files[path].replace(old, new)}


def only_job(report):
    assert len(report.jobs) == 1
    return report.jobs[0]


def keys(manifests) -> list[str]:
    return [str(m.key) for m in manifests]
