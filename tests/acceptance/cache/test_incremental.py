"""A render or check in which a few blueprints changed renders only those (the pipeline does not
run over the others), writes only the files whose bytes change, and says and writes exactly
what a run without the cache does in a copy of the repository. Whatever the last run's record
cannot vouch for (an output or companion file changed by hand, the index edited, a blueprint
whose result changes shape, a new file, an error) is left to the full pipeline."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from mpigen.cache import folders
from mpigen.project import check as check_command, incremental, render as render_command
from tests.support.blueprints import blueprint_yaml
from tests.support.cache_repository import folder, run

CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
overlays: [dev]
output: out
gitops: argocd
argocd:
  repoURL: https://git.example.com/ml/training.git
  applications: clusters/argocd
"""
OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\nnamespace: ml-dev\n"


def job_text(name: str, tag: int) -> str:
    """The minimal blueprint `name`, labelled team t<tag> (a change of tag changes its objects)."""
    return blueprint_yaml(name, f"labels: {{team: t{tag}}}\n")


@pytest.fixture
def repos(tmp_path, monkeypatch, capsysbinary):
    """Two copies of a repository of blueprints, rendered: one with the cache, one without. Twenty
    more jobs than those the tests change, so that a change to one is small enough to be
    written in place (mpigen.output.commit)."""
    monkeypatch.setattr(folders, "RACY", 0)
    monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp_path / "cache"))
    roots = [tmp_path / "cached", tmp_path / "uncached"]
    for root in roots:
        (root / "overlays" / "dev").mkdir(parents=True)
        (root / "overlays" / "dev" / "overlay.yaml").write_text(OVERLAY)
        (root / "mpigen.yaml").write_text(CONFIG)
        for name in ("job-a", "job-b", "job-c", *(f"other-{i}" for i in range(20))):
            write(root, name, job_text(name, 1))
    assert run(roots[0], ["render"], None, capsysbinary)[0] == 0
    assert run(roots[1], ["render", "--no-cache"], None, capsysbinary)[0] == 0
    time.sleep(0.02)  # a clock tick of the file system: what comes next has another mtime and ctime
    return roots


def write(root: Path, name: str, text: str) -> None:
    (root / "blueprints").mkdir(exist_ok=True)
    (root / "blueprints" / f"{name}.yaml").write_text(text)


@pytest.fixture
def pipeline_runs(monkeypatch):
    """How many times render and check ran the pipeline."""
    runs = []
    for module in (render_command, check_command):
        monkeypatch.setattr(module, "rendered", lambda *args, real=module.rendered: runs.append(1) or real(*args))
    return runs


def same(roots, argv, capsysbinary):
    """Run ARGV in both copies (without the cache in the second): the same exit code, output and folders."""
    with_cache = run(roots[0], argv, None, capsysbinary)
    without = run(roots[1], [*argv, "--no-cache"], None, capsysbinary)
    assert with_cache == without
    for name in ("out", "clusters"):
        assert folder(roots[0] / name) == folder(roots[1] / name)
    return with_cache


def stats(out: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(out).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.rglob("*")
            if p.is_file()}


def test_a_changed_blueprint_is_rendered_alone_and_only_its_changed_files_are_written(repos, pipeline_runs,
                                                                                       capsysbinary):
    before, old = stats(repos[0] / "out"), folder(repos[0] / "out")
    for root in repos:
        write(root, "job-b", job_text("job-b", 2))
    code, _, err = same(repos, ["render"], capsysbinary)
    # the incremental render names the companion folder it rewrote too
    assert code == 0 and err.endswith(b"\nmpigen: rendered 23 jobs (138 objects) into out/dev; "
                                      b"Argo CD Applications into clusters/argocd\n")
    assert err.count(b"warning: spec.runPolicy.cleanPodPolicy is None") == 23  # the argocd profile's, as before
    assert pipeline_runs == [1]  # the run without the cache only
    after, new = stats(repos[0] / "out"), folder(repos[0] / "out")
    touched = sorted(p for p in after if after[p] != before[p])
    assert touched == sorted(p for p in new if new[p] != old[p])
    assert len(touched) == 7 and ".mpigen-index" in touched  # the job's six objects (their labels), the index
    assert same(repos, ["check"], capsysbinary)[0] == 0
    assert pipeline_runs == [1, 1]


def test_check_shows_the_diff_the_full_check_shows(repos, pipeline_runs, capsysbinary):
    for root in repos:
        write(root, "job-c", job_text("job-c", 3))
    code, out, err = same(repos, ["check"], capsysbinary)
    assert code == 1 and b"+    team: t3" in out
    assert b"out is stale: 7 changed files" in err  # the job's six objects, the index
    assert pipeline_runs == [1]
    assert same(repos, ["check"], capsysbinary)[0] == 1  # a check never writes the record of a stale folder
    assert same(repos, ["render"], capsysbinary)[0] == 0
    assert same(repos, ["check"], capsysbinary)[0] == 0


def _job_file(root: Path, kind: str) -> Path:
    """The file of job-a's object of this kind (named after its run under the argocd profile)."""
    return next((root / "out" / "dev" / "ml-dev").glob(f"{kind}-job-a-*"))


def _hand_edit(target: Path) -> None:
    """A byte changed, the size and mtime kept."""
    status, data = target.stat(), target.read_bytes()
    target.write_bytes(data[:-2] + b"X" + data[-1:])
    os.utime(target, ns=(status.st_atime_ns, status.st_mtime_ns))


CHANGES = {
    "an output file edited by hand": lambda root: _hand_edit(_job_file(root, "statefulset")),
    "the index edited by hand": lambda root: _hand_edit(root / "out/.mpigen-index"),
    "a companion file edited by hand": lambda root: _hand_edit(root / "clusters/argocd/application-mpigen-dev.yaml"),
    "a companion file removed": lambda root: (root / "clusters/argocd/application-mpigen-dev.yaml").unlink(),
    "an output file removed": lambda root: _job_file(root, "configmap").unlink(),
    "a new run (the profile's names change)": lambda root: write(root, "job-a", job_text("job-a", 1).replace(
        "workers: 2", "workers: 3")),
    "a line above the job's name": lambda root: write(root, "job-a", "# moved\n" + job_text("job-a", 1)),
    "another job's name": lambda root: write(root, "job-a", job_text("job-z", 1)),
    "a new blueprint": lambda root: write(root, "job-d", job_text("job-d", 1)),
    "a blueprint removed": lambda root: (root / "blueprints" / "job-c.yaml").unlink(),
    "an invalid blueprint": lambda root: write(root, "job-a", job_text("job-a", 1).replace(
        "workers: 2", "workers: 0")),
    "two jobs of one name": lambda root: write(root, "job-a", job_text("job-b", 1)),
    "an overlay changed": lambda root: (root / "overlays/dev/overlay.yaml").write_text(OVERLAY + "labels: {a: b}\n"),
}


EDITS = {"an output file edited by hand", "a companion file edited by hand"}  # render refuses them (issue 28)


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("command", ["render", "check"])
def test_what_the_record_cannot_vouch_for_is_left_to_the_pipeline(repos, pipeline_runs, capsysbinary, change,
                                                                   command):
    for root in repos:
        CHANGES[change](root)
    code = same(repos, [command], capsysbinary)[0]
    assert len(pipeline_runs) == 2  # with the cache too
    if change in EDITS:
        assert code == (2 if command == "render" else 1)
        assert same(repos, ["render"], capsysbinary)[0] == 2
    same(repos, ["render", "--discard-edits"], capsysbinary)
    same(repos, ["check"], capsysbinary)


def test_a_file_edited_by_hand_stops_a_render_the_record_would_have_patched(repos, pipeline_runs, capsysbinary):
    """A blueprint changed, which the record could write in place, and a file of another job
    edited by hand, its size and mtime kept: the record cannot vouch for the folder, and the
    pipeline refuses the edit, with the cache as without, writing nothing."""
    edited = [_job_file(root, "statefulset") for root in repos]
    for root, path in zip(repos, edited):
        write(root, "job-b", job_text("job-b", 2))
        _hand_edit(path)
    before = [stats(root / "out") for root in repos]
    code, _, err = same(repos, ["render"], capsysbinary)
    shown = f"out/{edited[0].relative_to(repos[0] / 'out').as_posix()}"
    assert code == 2 and f"error: {shown}: refusing to overwrite".encode() in err
    assert len(pipeline_runs) == 2 and [stats(root / "out") for root in repos] == before
    code, _, err = same(repos, ["render", "--discard-edits"], capsysbinary)
    assert code == 0 and f"warning: {shown}: replaced".encode() in err
    assert same(repos, ["check"], capsysbinary)[0] == 0


def test_a_touched_blueprint_is_read_again_and_found_unchanged(repos, pipeline_runs, capsysbinary):
    for root in repos:
        os.utime(root / "blueprints" / "job-a.yaml")
    assert same(repos, ["render"], capsysbinary)[0] == 0
    assert same(repos, ["check"], capsysbinary)[0] == 0
    assert pipeline_runs == [1, 1]


def test_many_changed_blueprints_are_left_to_the_parallel_pipeline(repos, pipeline_runs, capsysbinary, monkeypatch):
    monkeypatch.setattr(incremental, "FEW", 1)
    for root in repos:
        for name in ("job-a", "job-b"):
            write(root, name, job_text(name, 5))
    assert same(repos, ["render"], capsysbinary)[0] == 0
    assert pipeline_runs == [1, 1]


def test_an_output_folder_moved_away_is_rendered_again(repos, pipeline_runs, capsysbinary):
    for root in repos:
        shutil.move(root / "out", root / "elsewhere")
    assert same(repos, ["render"], capsysbinary)[0] == 0
    assert len(pipeline_runs) == 2


def test_a_render_of_one_overlay_patches_its_own_files_and_keeps_the_others(repos, pipeline_runs, capsysbinary):
    for root in repos:
        (root / "overlays" / "prod").mkdir()
        (root / "overlays" / "prod" / "overlay.yaml").write_text(OVERLAY.replace("ml-dev", "ml-prod"))
        (root / "mpigen.yaml").write_text(CONFIG.replace("overlays: [dev]", "overlays: [dev, prod]"))
    assert same(repos, ["render"], capsysbinary)[0] == 0
    for tag in (2, 3):
        for root in repos:
            write(root, "job-b", job_text("job-b", tag))
        time.sleep(0.02)
        assert same(repos, ["render", "--overlay", "dev"], capsysbinary)[0] == 0
    assert len(pipeline_runs) == 5  # the last render of dev with the cache patched the folder
    assert b"team: t1" in next((repos[0] / "out" / "prod" / "ml-prod").glob("job-job-b-*")).read_bytes()
    assert same(repos, ["check"], capsysbinary)[0] == 1  # prod is one change behind, in both copies
