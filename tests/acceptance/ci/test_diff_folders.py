"""`mpigen diff OLD_DIR NEW_DIR`: changes applied in place, immutable ones, JSON, and what is
no manifest.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.ci_repository import GPUS, IMAGE, OUT, WORKER_CPU, edit, make_repo, mpigen, no_git


# --- 2. mpigen diff OLD_DIR NEW_DIR -------------------------------------------------------------

def two_renders(tmp_path: Path, *changes) -> Path:
    """A folder holding old/ (the render of the example) and new/ (after the changes),
    outside any git repository and without mpigen.yaml."""
    repo = make_repo(tmp_path / "repo", commit=False)
    where = tmp_path / "cmp"
    where.mkdir()
    shutil.copytree(repo / OUT, where / "old")
    for change in changes:
        edit(repo, change)
    assert mpigen(repo, "render").code == 0
    shutil.copytree(repo / OUT, where / "new")
    return where


def test_diff_of_identical_folders(tmp_path):
    where = two_renders(tmp_path)
    run = mpigen(where, "diff", "old", "new", env=no_git(tmp_path))
    assert (run.code, run.out, run.err) == (0, "no changes\n", "")
    markdown = mpigen(where, "diff", "old", "new", "--format", "markdown", env=no_git(tmp_path))
    assert markdown.code == 0
    assert markdown.out == "### mpigen diff: `old` → `new`\n\nNo changes.\n"
    data = json.loads(mpigen(where, "diff", "old", "new", "--format", "json").out)
    assert data["differs"] is False and data["jobs"] == []


def test_diff_of_a_change_kubernetes_applies_in_place(tmp_path):
    where = two_renders(tmp_path, WORKER_CPU)
    run = mpigen(where, "diff", "old", "new", env=no_git(tmp_path))
    assert run.code == 1, run.err
    assert run.out.splitlines()[0] == "job ml-dev/intel-pi (env dev)"
    assert "job hpc/intel-pi (env prod)" in run.out
    assert "restarts the workers" in run.out
    assert "spec.template.spec.containers[mpi-worker].resources.limits.cpu: \"2\" -> \"3\"" in run.out
    assert "IMMUTABLE" not in run.out
    assert run.out.splitlines()[-1] == ("old -> new: 2 jobs changed; objects: 0 added, 0 removed, 2 changed; "
                                        "0 immutable changes")
    lenient = mpigen(where, "diff", "old", "new", "--fail-on", "immutable")
    assert lenient.code == 0 and lenient.out == run.out
    markdown = mpigen(where, "diff", "old", "new", "--format", "markdown")
    assert markdown.code == 1
    assert markdown.out.startswith("### mpigen diff: `old` → `new`\n")
    assert "[!WARNING]" not in markdown.out
    assert "| ml-dev/intel-pi | dev | +0 −0 ~1 |" in markdown.out


def test_diff_of_a_launcher_image_change_is_immutable(tmp_path):
    where = two_renders(tmp_path, IMAGE)
    for fail_on in ("any", "immutable"):
        run = mpigen(where, "diff", "old", "new", "--fail-on", fail_on)
        assert run.code == 1, (fail_on, run.err)
    run = mpigen(where, "diff", "old", "new")
    assert "IMMUTABLE: Kubernetes refuses to change spec.template of Job ml-dev/intel-pi-launcher" in run.out
    assert "IMMUTABLE: Kubernetes refuses to change spec.template of Job hpc/intel-pi-launcher" in run.out
    markdown = mpigen(where, "diff", "old", "new", "--format", "markdown", "--fail-on", "immutable")
    assert markdown.code == 1
    lines = markdown.out.splitlines()
    assert lines[0].startswith("### mpigen diff:")
    assert lines[2] == "- **Jobs changed**: 2 (dev: 1, prod: 1)"  # the overview, then the warning
    warning = lines.index("> [!WARNING]")
    assert "- **Immutable changes**: 2 in 2 jobs: Argo CD and Flux fail to sync them" in lines[2:warning]
    assert "**2 change(s) Kubernetes refuses to apply in place.**" in lines[warning + 1]


def test_diff_json(tmp_path):
    where = two_renders(tmp_path, IMAGE, GPUS)
    run = mpigen(where, "diff", "old", "new", "--format", "json")
    assert run.code == 1
    data = json.loads(run.out)
    assert data["old"] == "old" and data["new"] == "new"
    assert data["differs"] is True and data["immutable"] is True
    jobs = {(job["environment"], job["namespace"], job["job"]): job for job in data["jobs"]}
    assert sorted(jobs) == [("dev", "ml-dev", "intel-pi"), ("prod", "hpc", "intel-pi"),
                            ("prod", "ml-team", "resnet50-imagenet")]
    resnet = jobs["prod", "ml-team", "resnet50-imagenet"]
    assert resnet["gpus"] == {"old": 128, "new": 64}
    assert resnet["slots"] == {"old": 128, "new": 64}
    assert {c["kind"] for c in resnet["changed"]} == {"ConfigMap", "Job", "StatefulSet"}
    intel = jobs["prod", "hpc", "intel-pi"]
    assert [f["path"] for f in intel["immutable"]] == ["spec.template"]
    assert data["summary"]["jobs"] == 3 and data["summary"]["immutable"] == 3


def test_diff_of_a_missing_folder_or_invalid_yaml_exits_2(tmp_path):
    where = two_renders(tmp_path)
    run = mpigen(where, "diff", "nosuch", "new", env=no_git(tmp_path))
    assert run.code == 2 and run.out == ""
    assert run.err == ("error: nosuch: no such folder; give two rendered output folders, or two git revisions: "
                       "mpigen diff --base OLD_REV --head NEW_REV\n")
    (where / "new" / "dev" / "ml-dev" / "broken.yaml").write_text("kind: ConfigMap\nmetadata: [\n")
    run = mpigen(where, "diff", "old", "new", env=no_git(tmp_path))
    assert run.code == 2 and run.out == ""
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0] == ("new/dev/ml-dev/broken.yaml:2:11: error: invalid YAML: did not find expected node content; "
                                        "the file ends inside this '[': add ']' where it ends"), run.err
    assert mpigen(where, "diff", "old").code == 2  # two folders, not one


def test_diff_ignores_binary_files_that_are_no_manifests(tmp_path):
    where = two_renders(tmp_path)
    (where / "new" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff")
    run = mpigen(where, "diff", "old", "new")
    assert (run.code, run.out) == (0, "no changes\n"), run.err


def test_diff_max_chars_cuts_the_report_and_refuses_a_budget_too_small(tmp_path):
    where = two_renders(tmp_path, IMAGE)
    whole = mpigen(where, "diff", "old", "new", "--format", "markdown", "--max-chars", "0")
    cut = mpigen(where, "diff", "old", "new", "--format", "markdown", "--max-chars", "2000", "--more", "the artifact")
    assert whole.code == cut.code == 1
    assert len(cut.out) <= 2000 < len(whole.out)
    assert "left out to fit: see the artifact**" in cut.out and "> [!WARNING]" in cut.out
    for bad, said in (("10", "10 is too few to say anything: give at least 2000 (or 0)"),
                      ("x", "'x' is not a whole number of characters")):
        run = mpigen(where, "diff", "old", "new", "--max-chars", bad)
        assert run.code == 2 and said in run.err, run.err
