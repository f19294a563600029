"""`mpigen diff OLD_DIR NEW_DIR` of two `--target jobset` renders: totals, a change the
JobSet webhook refuses, a new run under Argo CD, and `state: completed`.

Each case renders copies of this repository's blueprints/resnet50-imagenet.yaml (4 workers
x 8 GPUs, Open MPI hostfile `HOST slots=8`) and intel-pi.yaml (2 workers, no GPUs, Intel MPI
hostfile `HOST:2`) twice, with a change in between, in a temporary folder outside git.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from tests.support.ci_repository import mpigen, no_git
from tests.support.paths import ROOT

RESNET = "resnet50-imagenet.yaml"
INTEL = "intel-pi.yaml"


def renders(tmp_path: Path, change: tuple[str, str], *options: str) -> Path:
    """old/ and new/: the two blueprints rendered with --target jobset (and options), before
    and after replacing change[0] by change[1] in resnet50-imagenet.yaml."""
    render(tmp_path, "old", *options)
    text = (tmp_path / RESNET).read_text(encoding="utf-8")
    assert text.count(change[0]) == 1, change
    (tmp_path / RESNET).write_text(text.replace(change[0], change[1]), encoding="utf-8")
    render(tmp_path, "new", *options)
    return tmp_path


def render(where: Path, folder: str, *options: str) -> None:
    """The two blueprints (copied into where the first time) rendered into where/folder."""
    where.mkdir(exist_ok=True)
    for name in (RESNET, INTEL):
        if not (where / name).exists():
            shutil.copy(ROOT / "blueprints" / name, where / name)
    run = mpigen(where, "render", RESNET, INTEL, "--target", "jobset", *options, "-o", folder, env=no_git(where))
    assert run.code == 0, run.err


def diff(where: Path, *options: str) -> tuple[int, dict]:
    run = mpigen(where, "diff", "old", "new", "--format", "json", *options, env=no_git(where))
    assert run.code in (0, 1), run.err
    return run.code, json.loads(run.out)


def test_first_render_counts_jobset_gpus_and_both_hostfile_styles(tmp_path):
    render(tmp_path, "new")
    (tmp_path / "old").mkdir()
    code, data = diff(tmp_path)
    assert code == 1
    jobs = {job["job"]: job for job in data["jobs"]}
    assert jobs["resnet50-imagenet"]["gpus"] == {"old": 0, "new": 32}  # 4 worker pods x 8
    assert jobs["resnet50-imagenet"]["slots"] == {"old": 0, "new": 32}  # 4 x `slots=8`
    assert jobs["intel-pi"]["gpus"] == {"old": 0, "new": 0}
    assert jobs["intel-pi"]["slots"] == {"old": 0, "new": 4}  # 2 x `:2`
    assert all(job["newRun"] and "JobSet" in {o["kind"] for o in job["added"]} for job in jobs.values())


def test_more_workers_in_place_is_refused(tmp_path):
    where = renders(tmp_path, ("workers: 4", "workers: 8"))
    code, data = diff(where, "--fail-on", "immutable")
    assert code == 1 and data["summary"]["jobs"] == 1
    job = data["jobs"][0]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 64}
    # the worker count, and mpirun's -np in the launcher's command
    assert [(f["object"], f["path"]) for f in job["immutable"]] == [
        ("JobSet ml-team/resnet50-imagenet", "spec.replicatedJobs[worker]"),
        ("JobSet ml-team/resnet50-imagenet", "spec.replicatedJobs[launcher]")]
    assert not job["newRun"] and not job["endsRun"]
    text = mpigen(where, "diff", "old", "new", env=no_git(where)).out
    assert ("IMMUTABLE: Kubernetes refuses to change spec.replicatedJobs[worker] of JobSet "
            "ml-team/resnet50-imagenet: Argo CD and Flux will fail to sync it") in text


def test_more_workers_under_argocd_is_a_new_run(tmp_path):
    where = renders(tmp_path, ("workers: 4", "workers: 8"), "--gitops", "argocd")
    code, data = diff(where, "--fail-on", "immutable")
    assert code == 0 and data["summary"] == {"jobs": 1, "added": 5, "removed": 5, "changed": 0, "immutable": 0}
    job = data["jobs"][0]
    assert job["job"] == "resnet50-imagenet" and job["newRun"] and job["endsRun"]
    assert job["gpus"] == {"old": 32, "new": 64} and job["slots"] == {"old": 32, "new": 64}
    added = sorted(o["name"] for o in job["added"] if o["kind"] == "JobSet")
    removed = sorted(o["name"] for o in job["removed"] if o["kind"] == "JobSet")
    assert len(added) == len(removed) == 1 and added != removed
    assert added[0].startswith("resnet50-imagenet-") and removed[0].startswith("resnet50-imagenet-")
    text = mpigen(where, "diff", "old", "new", env=no_git(where)).out
    assert "  starts a new run: a launcher Job is created\n  ends the run: a launcher Job is deleted\n" in text


def test_completed_suspends_the_jobset_in_place(tmp_path):
    where = renders(tmp_path, ("spec:\n", "spec:\n  state: completed\n"), "--gitops", "argocd")
    code, data = diff(where, "--fail-on", "immutable")
    assert code == 0 and data["summary"]["immutable"] == 0
    job = data["jobs"][0]
    assert job["gpus"] == {"old": 32, "new": 0} and job["slots"] == {"old": 32, "new": 0}
    assert [(c["kind"], c["fields"]) for c in job["changed"]] == [
        ("JobSet", [{"path": "spec.suspend", "op": "add", "old": None, "new": True}])]
    assert not job["newRun"] and not job["endsRun"]


def test_label_edit_reaches_the_pod_templates_only_without_gitops(tmp_path):
    """Without a GitOps profile the blueprint's labels are on the pod templates too, which a
    running JobSet may not change; under Argo CD they are on the objects alone."""
    where = renders(tmp_path / "none", ("team: vision", "team: perception"))
    code, data = diff(where)
    assert code == 1
    jobset = yaml.safe_load((where / "old" / "ml-team" / "jobset-resnet50-imagenet.yaml").read_text())
    # every replicated job (key generator, worker, launcher), each by its name
    assert [f["path"] for f in data["jobs"][0]["immutable"]] == [
        f"spec.replicatedJobs[{job['name']}]" for job in jobset["spec"]["replicatedJobs"]]
    assert len(jobset["spec"]["replicatedJobs"]) == 3
    code, data = diff(renders(tmp_path / "argocd", ("team: vision", "team: perception"), "--gitops", "argocd"))
    assert code == 1 and data["immutable"] is False
    assert {f["path"] for c in data["jobs"][0]["changed"] for f in c["fields"]} == {"metadata.labels.team"}
