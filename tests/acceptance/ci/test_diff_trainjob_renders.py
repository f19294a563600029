"""`mpigen diff OLD_DIR NEW_DIR` of two `--target trainjob` renders: the GPUs and slots of a
TrainJob come from its numNodes and the runtime mpigen wrote beside it (the Trainer gives the
workers' resources to the node job from the runtime), and a spec change under a GitOps
profile is a new run. blueprints/resnet50-imagenet.yaml: 4 workers x 8 GPUs, 8 slots."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.ci_repository import mpigen, no_git
from tests.support.paths import ROOT

RESNET = "resnet50-imagenet.yaml"


def render(where: Path, folder: str, *options: str) -> None:
    where.mkdir(exist_ok=True)
    if not (where / RESNET).exists():
        shutil.copy(ROOT / "blueprints" / RESNET, where / RESNET)
    run = mpigen(where, "render", RESNET, "--target", "trainjob", *options, "-o", folder, env=no_git(where))
    assert run.code == 0, run.err


def diff(where: Path) -> tuple[int, dict]:
    run = mpigen(where, "diff", "old", "new", "--format", "json", env=no_git(where))
    assert run.code in (0, 1), run.err
    return run.code, json.loads(run.out)


def test_a_first_render_counts_the_runtimes_gpus(tmp_path):
    render(tmp_path, "new")
    (tmp_path / "old").mkdir()
    code, data = diff(tmp_path)
    jobs = {job["job"]: job for job in data["jobs"]}
    assert code == 1
    assert jobs["resnet50-imagenet"]["gpus"] == {"old": 0, "new": 32}
    assert jobs["resnet50-imagenet"]["slots"] == {"old": 0, "new": 32}


def test_more_workers_under_argocd_is_a_new_run_with_more_gpus(tmp_path):
    render(tmp_path, "old", "--gitops", "argocd")
    text = (tmp_path / RESNET).read_text(encoding="utf-8")
    (tmp_path / RESNET).write_text(text.replace("workers: 4", "workers: 6"), encoding="utf-8")
    render(tmp_path, "new", "--gitops", "argocd")
    code, data = diff(tmp_path)
    jobs = {job["job"]: job for job in data["jobs"]}
    assert code == 1
    assert jobs["resnet50-imagenet"]["gpus"] == {"old": 32, "new": 48}
