"""The CI loop of a user repository, through the command line: `mpigen check` after
`mpigen render`, `mpigen diff` of two folders and against a git revision, parallel
rendering giving the same bytes as a serial one, the example GitHub Actions workflow
(docs/ci/github-actions.yml) run step by step, and the pre-commit hooks.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, example_blueprints, job_objects, run_mpigen

BIN = Path(sys.executable).parent
# git as a user's machine runs it, without the global or system configuration of the
# machine running the tests (signing, hooks, default branch).
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0"}
ENV.pop("MPIGEN_PROCESSES", None)
ENV.pop("MPIGEN_DEBUG", None)
OUT = "rendered"
# The examples (blueprints/*.yaml) and the environments mpigen.yaml renders each of them for.
EXAMPLES = example_blueprints()
ENVIRONMENTS = yaml.safe_load((ROOT / "mpigen.yaml").read_text(encoding="utf-8"))["overlays"]

INTEL = "blueprints/intel-pi.yaml"
RESNET = "blueprints/resnet50-imagenet.yaml"
MPICH = "blueprints/mpich-pi.yaml"
# Changes to a blueprint, as (file, old text, new text), and what they do on the clusters.
WORKER_CPU = (INTEL, "worker: {cpu: 2, memory: 2Gi}", "worker: {cpu: 3, memory: 2Gi}")  # StatefulSet template only
IMAGE = (INTEL, "image: mpioperator/mpi-pi:intel", "image: mpioperator/mpi-pi:intel-2")  # launcher Job template
WORKERS = (INTEL, "  workers: 2\n", "  workers: 3\n")  # prod only (dev patches workers to 1); mpirun -np too
GPUS = (RESNET, "gpusPerWorker: 8", "gpusPerWorker: 4")  # prod only: 16 x 8 -> 16 x 4 GPUs
MPICH_CPU = (MPICH, "worker: {cpu: 1, memory: 1Gi}", "worker: {cpu: 2, memory: 1Gi}")

POSITIONED = re.compile(r"^[^:\s]+:\d+:\d+: error: ")


# --- helpers ---------------------------------------------------------------------------------

@dataclass
class Run:
    code: int
    out: str
    err: str


def mpigen(cwd: Path, *args: str, env: dict | None = None) -> Run:
    done = run_mpigen(*args, cwd=cwd, env={**ENV, **(env or {})})
    return Run(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def init_git(root: Path) -> None:
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    git(root, "config", "user.name", "Test User")
    git(root, "config", "user.email", "test@example.com")


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def copy_overlays(root: Path) -> None:
    """The example overlays, all in the operator-exact profile: these tests follow objects by
    the operator's names (the argocd profile of prod renames them per run; its own tests
    are in test_gitops.py)."""
    shutil.copytree(ROOT / "overlays", root / "overlays")
    prod = root / "overlays" / "prod" / "overlay.yaml"
    text, count = re.subn(r"(?m)^gitops: .*\n", "", prod.read_text(encoding="utf-8"))
    assert count == 1
    prod.write_text(text, encoding="utf-8")


def make_repo(root: Path, output: str | None = OUT, render: bool = True, commit: bool = True) -> Path:
    """A user repository: the example's blueprints, overlays and mpigen.yaml (output changed),
    rendered and committed on main."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "blueprints", root / "blueprints")
    copy_overlays(root)
    config = (ROOT / "mpigen.yaml").read_text(encoding="utf-8")
    # Without the Argo CD Applications: these tests follow the output folder alone.
    config, count = re.subn(r"(?ms)^# Argo CD Applications.*\Z", "", config)
    assert count == 1
    if output is not None:
        config, count = re.subn(r"(?m)^output: .*$", f"output: {output}", config)
        assert count == 1
    (root / "mpigen.yaml").write_text(config, encoding="utf-8")
    init_git(root)
    if render:
        run = mpigen(root, "render")
        assert run.code == 0, run.err
    if commit:
        commit_all(root, "blueprints and their render")
    return root


def edit(root: Path, change: tuple[str, str, str]) -> None:
    path, old, new = change
    text = (root / path).read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    (root / path).write_text(text.replace(old, new), encoding="utf-8")


def snapshot(root: Path) -> dict:
    """Every file's bytes and every file's and folder's mtime below root (.git skipped)."""
    state = {".": ("dir", root.stat().st_mtime_ns, None)}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in dirs + sorted(names):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            state[rel] = ("dir", st.st_mtime_ns, None) if path.is_dir() else ("file", st.st_mtime_ns, path.read_bytes())
    return state


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def headers(diff: str) -> list[tuple[str, str]]:
    """The (---, +++) file pairs of a unified diff, in order."""
    lines = diff.splitlines()
    return [(a[4:], b[4:]) for a, b in zip(lines, lines[1:]) if a.startswith("--- ") and b.startswith("+++ ")]


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "repo")


# --- 1. mpigen check -----------------------------------------------------------------------------

def test_check_passes_right_after_render(repo):
    run = mpigen(repo, "check")
    assert run.code == 0, run.err
    assert run.out == ""
    assert run.err == f"mpigen: {OUT} is up to date ({len(EXAMPLES) * len(ENVIRONMENTS)} jobs)\n"


def test_check_reports_a_stale_folder_with_a_unified_diff_index_last(repo):
    edit(repo, WORKERS)  # prod: 2 -> 3 workers (dev patches every job to 1 worker)
    before = snapshot(repo)
    run = mpigen(repo, "check")
    assert run.code == 1
    prod = f"{OUT}/prod/hpc"
    changed = [f"{prod}/configmap-intel-pi-config.yaml", f"{prod}/job-intel-pi-launcher.yaml",
               f"{prod}/role-intel-pi-launcher.yaml", f"{prod}/statefulset-intel-pi-worker.yaml",
               f"{OUT}/.mpigen-index"]
    assert headers(run.out) == [(f"a/{p}", f"b/{p}") for p in changed]
    assert "-  replicas: 2\n+  replicas: 3\n" in run.out
    assert '-        - "4"\n+        - "6"\n' in run.out  # mpirun -np: 2 x 2 slots -> 3 x 2
    assert "+    intel-pi-worker-2:2\n" in run.out
    assert run.err == (f"mpigen: {OUT} is stale: 5 changed files; run `mpigen render` and commit the result\n")
    assert snapshot(repo) == before
    # The command that fixes it, then check is happy again.
    assert mpigen(repo, "render").code == 0
    assert mpigen(repo, "check").code == 0


def test_check_reports_a_missing_file(repo):
    missing = f"{OUT}/dev/ml-dev/job-intel-pi-launcher.yaml"
    text = (repo / missing).read_text(encoding="utf-8")
    (repo / missing).unlink()
    run = mpigen(repo, "check")
    assert run.code == 1
    assert headers(run.out) == [("/dev/null", f"b/{missing}")]
    assert "".join(line[1:] + "\n" for line in run.out.splitlines()[3:]) == text  # the whole file, added
    assert "is stale: 1 missing file;" in run.err


def test_check_reports_files_the_render_no_longer_produces(repo):
    (repo / MPICH).unlink()  # its files stay in the folder and in the index
    before = snapshot(repo)
    run = mpigen(repo, "check")
    assert run.code == 1
    pairs = headers(run.out)
    extra = [a[2:] for a, b in pairs if b == "/dev/null"]
    assert len(extra) == 12 and all("mpich-pi" in path for path in extra)
    assert sorted(extra) == sorted(f"{OUT}/{p}" for p in
                                   (p.relative_to(repo / OUT).as_posix() for p in (repo / OUT).rglob("*mpich-pi*")))
    changed = [b[2:] for a, b in pairs if b != "/dev/null"]
    assert changed == [f"{OUT}/dev/kustomization.yaml", f"{OUT}/prod/kustomization.yaml", f"{OUT}/.mpigen-index"]
    assert "is stale: 3 changed, 12 extra files;" in run.err
    assert snapshot(repo) == before


def test_check_prints_the_index_last_also_with_extra_files(repo):
    (repo / MPICH).unlink()
    run = mpigen(repo, "check")
    assert run.code == 1
    assert headers(run.out)[-1] == (f"a/{OUT}/.mpigen-index", f"b/{OUT}/.mpigen-index")


def test_check_ignores_files_mpigen_did_not_write(repo):
    (repo / OUT / "README.md").write_text("Generated by mpigen; see blueprints/.\n")
    (repo / OUT / "dev" / "ml-dev" / "notes.yaml").write_text("owner: ml-platform\n")
    run = mpigen(repo, "check")
    assert run.code == 0, run.out + run.err
    assert run.out == ""


def test_check_of_an_invalid_blueprint_exits_2_with_positions_and_no_diff(repo):
    edit(repo, (INTEL, "  workers: 2\n", "  workers: 0\n"))
    before = snapshot(repo)
    run = mpigen(repo, "check")
    assert run.code == 2
    assert run.out == ""
    lines = run.err.splitlines()
    assert lines and all(POSITIONED.match(line) for line in lines), run.err
    assert any(line.startswith(f"{INTEL}:") and "spec.workers" in line for line in lines)
    assert snapshot(repo) == before


def test_check_never_writes(repo):
    """Nothing changes in the repository, stale or not: no file, folder or mtime."""
    edit(repo, IMAGE)
    (repo / OUT / "prod" / "hpc" / "job-mpich-pi-launcher.yaml").unlink()
    (repo / OUT / "dev" / "ml-dev" / "configmap-intel-pi-config.yaml").write_text("edited by hand\n")
    before = snapshot(repo)
    for args in (("check",), ("check", "--overlay", "dev", "blueprints", "-o", OUT), ("diff",), ("validate",)):
        run = mpigen(repo, *args)
        assert run.code == 1 or args == ("validate",), (args, run.err)
        assert snapshot(repo) == before, args


def test_check_with_paths_output_and_overlay_works_without_mpigen_yaml(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    shutil.copytree(ROOT / "blueprints", root / "blueprints")
    copy_overlays(root)
    assert mpigen(root, "check", "blueprints", "--overlay", "dev").code == 2  # no mpigen.yaml: -o is needed
    assert mpigen(root, "render", "blueprints", "-o", "out", "--overlay", "dev").code == 0
    assert mpigen(root, "render", "blueprints", "-o", "out", "--overlay", "prod").code == 0
    assert sorted(p.name for p in (root / "out").iterdir()) == [".mpigen-index", "dev", "prod"]
    for overlay in ("dev", "prod"):
        run = mpigen(root, "check", "blueprints", "-o", "out", "--overlay", overlay)
        assert run.code == 0, run.out + run.err  # the other overlay's files are not this run's business
    both = mpigen(root, "check", "blueprints", "-o", "out", "--overlay", "dev", "--overlay", "prod")
    assert both.code == 0, both.out + both.err
    edit(root, WORKERS)  # prod only
    assert mpigen(root, "check", "blueprints", "-o", "out", "--overlay", "dev").code == 0
    run = mpigen(root, "check", "blueprints", "-o", "out", "--overlay", "prod")
    assert run.code == 1
    assert all(b.startswith("b/out/prod/") or b == "b/out/.mpigen-index" for _, b in headers(run.out))
    assert "mpigen: out is stale: 5 changed files;" in run.err


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


def no_git(tmp_path: Path) -> dict:
    return {"GIT_CEILING_DIRECTORIES": str(tmp_path)}


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
    assert lines[2] == "> [!WARNING]"
    assert "**2 change(s) Kubernetes refuses to apply in place.**" in lines[3]


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
    assert run.err == "error: nosuch: no such folder; give two rendered output folders\n"
    (where / "new" / "dev" / "ml-dev" / "broken.yaml").write_text("kind: ConfigMap\nmetadata: [\n")
    run = mpigen(where, "diff", "old", "new", env=no_git(tmp_path))
    assert run.code == 2 and run.out == ""
    lines = run.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("new/dev/ml-dev/broken.yaml:3:1: error: invalid YAML"), run.err
    assert mpigen(where, "diff", "old").code == 2  # two folders, not one


def test_diff_ignores_binary_files_that_are_no_manifests(tmp_path):
    where = two_renders(tmp_path)
    (where / "new" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff")
    run = mpigen(where, "diff", "old", "new")
    assert (run.code, run.out) == (0, "no changes\n"), run.err


# --- 3. mpigen diff --base REV --------------------------------------------------------------------

def test_diff_against_a_revision_renders_the_working_tree(repo):
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo, GPUS)  # not re-rendered: diff renders the working tree in memory
    short = git(repo, "rev-parse", "main").strip()[:12]
    run = mpigen(repo, "diff", "--base", "main")
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    assert lines[0] == "job ml-team/resnet50-imagenet (env prod)"
    assert "  GPUs 128 -> 64 (changed)" in lines
    assert "  slots 128 -> 64 (changed)" in lines
    assert lines[-1] == (f"main ({short}) -> working tree: 1 job changed; objects: 0 added, 0 removed, "
                         "3 changed; 1 immutable change")
    # Re-rendered and committed on the branch: the same report (the base side is read from git).
    assert mpigen(repo, "render").code == 0
    commit_all(repo, "fewer GPUs")
    again = mpigen(repo, "diff", "--base", "main")
    assert (again.code, again.out) == (1, run.out)
    assert mpigen(repo, "diff", "--base", "HEAD").out == "no changes\n"


def test_diff_defaults_to_the_merge_base_with_main(repo):
    fork = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "feature")
    edit(repo, WORKER_CPU)
    commit_all(repo, "feature")
    # main moves on after the branch was made: its changes are not the branch's.
    git(repo, "checkout", "-q", "main")
    edit(repo, MPICH_CPU)
    assert mpigen(repo, "render").code == 0
    commit_all(repo, "main moves on")
    git(repo, "checkout", "-q", "feature")
    run = mpigen(repo, "diff")
    assert run.code == 1, run.err
    assert "intel-pi" in run.out and "mpich-pi" not in run.out
    assert run.out.splitlines()[-1].startswith(f"{fork[:12]} -> working tree: 2 jobs changed;")
    assert "mpich-pi" in mpigen(repo, "diff", "--base", "main").out  # the tip of main: mpich-pi looks reverted


def test_diff_defaults_to_the_merge_base_with_origin_main(tmp_path):
    origin = make_repo(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "config", "user.name", "Test User")
    git(clone, "config", "user.email", "test@example.com")
    git(clone, "checkout", "-q", "-b", "feature")
    git(clone, "branch", "-q", "-D", "main")  # only origin/main (and origin/HEAD) remain
    fork = git(clone, "rev-parse", "HEAD").strip()
    edit(clone, GPUS)
    # origin's main moves on; the clone fetches it.
    edit(origin, MPICH_CPU)
    assert mpigen(origin, "render").code == 0
    commit_all(origin, "main moves on")
    git(clone, "fetch", "-q", "origin")
    run = mpigen(clone, "diff")
    assert run.code == 1, run.err
    assert run.out.splitlines()[0] == "job ml-team/resnet50-imagenet (env prod)"
    assert "mpich-pi" not in run.out
    assert run.out.splitlines()[-1].startswith(f"{fork[:12]} -> working tree: 1 job changed;")
    # Without origin/HEAD, origin/main is used.
    git(clone, "remote", "set-head", "origin", "--delete")
    assert mpigen(clone, "diff").out == run.out
    assert "mpich-pi" in mpigen(clone, "diff", "--base", "origin/main").out


def test_diff_of_an_unknown_revision_exits_2(repo):
    run = mpigen(repo, "diff", "--base", "no-such-branch")
    assert run.code == 2 and run.out == ""
    assert run.err.startswith("error: .: unknown git revision 'no-such-branch';")
    assert "--base" in run.err


def test_diff_without_a_default_branch_exits_2(tmp_path):
    root = make_repo(tmp_path / "repo", commit=False)
    git(root, "checkout", "-q", "-b", "trunk")
    commit_all(root, "on trunk")
    run = mpigen(root, "diff")
    assert run.code == 2 and run.out == ""
    assert "cannot find the default branch" in run.err and "--base REV" in run.err


def test_diff_outside_a_git_repository_exits_2(tmp_path):
    root = make_repo(tmp_path / "plain", commit=False)
    shutil.rmtree(root / ".git")
    for args in (("diff",), ("diff", "--base", "main")):
        run = mpigen(root, *args, env=no_git(tmp_path))
        assert run.code == 2 and run.out == "", args
        assert run.err == ("error: .: not inside a git repository; compare two folders instead: "
                           "mpigen diff OLD_DIR NEW_DIR\n")


def test_diff_with_overlay_and_no_config_compares_only_that_overlay(repo):
    """Without mpigen.yaml (blueprints/ by default), --overlay dev -o DIR owns only DIR/dev/."""
    (repo / "mpigen.yaml").unlink()
    edit(repo, WORKER_CPU)  # changes dev and prod
    run = mpigen(repo, "diff", "--overlay", "dev", "-o", OUT, "--base", "main")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out and "(env prod)" not in run.out
    assert run.out.splitlines()[-1].endswith("1 job changed; objects: 0 added, 0 removed, 1 changed; "
                                             "0 immutable changes")


def test_diff_positional_arguments_are_the_two_folders(repo):
    """diff --base renders the repository (mpigen.yaml, or blueprints/ with -o); its
    positional arguments are always OLD_DIR NEW_DIR, so a blueprint path is refused."""
    edit(repo, WORKER_CPU)  # changes dev and prod
    run = mpigen(repo, "diff", "--overlay", "dev", "-o", OUT, "--base", "main")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out and "(env prod)" not in run.out
    refused = mpigen(repo, "diff", "blueprints", "--base", "main")
    assert refused.code == 2 and "not both" in refused.err


def test_diff_with_overlay_compares_only_that_overlay(repo):
    """With mpigen.yaml, --overlay dev owns only <output>/dev/ (at b616916 it owned the whole
    folder, so every prod object was reported as removed)."""
    edit(repo, WORKER_CPU)  # changes dev and prod
    run = mpigen(repo, "diff", "--overlay", "dev")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out
    assert "(env prod)" not in run.out, run.out.splitlines()[-1]


def test_check_and_render_with_overlay_leave_other_overlays_alone(repo):
    """(At b616916 `check --overlay dev` reported the prod files as extra and `render --overlay
    dev` deleted them.)"""
    check = mpigen(repo, "check", "--overlay", "dev")
    render = mpigen(repo, "render", "--overlay", "dev")
    assert render.code == 0
    deleted = git(repo, "status", "--porcelain", "--", OUT)
    assert (check.code, deleted) == (0, ""), check.err + deleted[:300]


def test_diff_against_a_revision_without_the_output_folder_adds_everything(tmp_path):
    root = make_repo(tmp_path / "repo", render=False)  # main holds blueprints only
    git(root, "checkout", "-q", "-b", "feature")
    run = mpigen(root, "diff", "--format", "json")
    assert run.code == 1, run.err
    data = json.loads(run.out)
    # every example in every environment, each with all of its objects (derived from blueprints/)
    added = sum(len(job_objects(example)) for example in EXAMPLES.values()) * len(ENVIRONMENTS)
    assert data["summary"] == {"jobs": len(EXAMPLES) * len(ENVIRONMENTS), "added": added, "removed": 0,
                               "changed": 0, "immutable": 0}
    assert sorted((job["environment"], job["job"]) for job in data["jobs"]) == sorted(
        (env, name) for env in ENVIRONMENTS for name in EXAMPLES)
    for job in data["jobs"]:
        assert job["newRun"]
        assert sorted((o["kind"], o["name"]) for o in job["added"]) == sorted(
            (kind, job["job"] + suffix) for kind, suffix in job_objects(EXAMPLES[job["job"]])), job["job"]
    assert {job["environment"] for job in data["jobs"]} == {"dev", "prod"}
    text = mpigen(root, "diff", "--fail-on", "immutable")
    assert text.code == 0
    assert "starts a new run: a launcher Job is created" in text.out


# --- 4. parallel rendering ---------------------------------------------------------------------

def _bench():
    spec = importlib.util.spec_from_file_location("mpigen_bench", ROOT / "bench" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SERIAL = {"MPIGEN_PROCESSES": "1"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    from mpigen.pipeline import PARALLEL_THRESHOLD

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: mpigen renders serially whatever the size")
    root = tmp_path_factory.mktemp("generated")
    _bench().generate(root, 150, 11)
    config = yaml.safe_load((root / "mpigen.yaml").read_text())
    assert 150 * len(config["overlays"]) >= PARALLEL_THRESHOLD
    return root


def test_parallel_render_to_stdout_is_the_serial_bytes(generated):
    parallel = run_mpigen("render", "--stdout", cwd=generated, env=ENV)
    serial = run_mpigen("render", "--stdout", cwd=generated, env={**ENV, **SERIAL})
    assert parallel.returncode == serial.returncode == 0, parallel.stderr
    assert parallel.stdout.count(b"\n---\n") > 1000
    assert parallel.stdout == serial.stdout
    assert parallel.stderr == serial.stderr


def test_parallel_render_to_a_folder_is_the_serial_bytes(generated, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(generated, work)
    assert run_mpigen("render", "-o", "parallel", cwd=work, env=ENV).returncode == 0
    assert run_mpigen("render", "-o", "serial", cwd=work, env={**ENV, **SERIAL}).returncode == 0
    parallel, serial = folder_bytes(work / "parallel"), folder_bytes(work / "serial")
    assert len(parallel) > 150 * 3 * 6
    assert parallel == serial
    run = mpigen(work, "check", "-o", "serial")  # a parallel check of a serial render
    assert run.code == 0, run.out[:2000]


def test_parallel_and_serial_report_the_same_errors(generated, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(generated, work)
    blueprints = work / "blueprints"
    for name, pattern, replacement in (("job-00012.yaml", r"(?m)^  image: .*$", '  image: "NOT AN IMAGE"'),
                                       ("job-00077.yaml", r"(?m)^  workers: .*$", "  workers: 0"),
                                       ("job-00149.yaml", r"(?m)^  command:", "  commandd:")):
        text = (blueprints / name).read_text()
        text, count = re.subn(pattern, replacement, text, count=1)
        assert count == 1
        (blueprints / name).write_text(text)
    shutil.copy(blueprints / "job-00003.yaml", blueprints / "job-00120-copy.yaml")  # a duplicate, another chunk
    parallel = run_mpigen("render", "--stdout", cwd=work, env=ENV)
    serial = run_mpigen("render", "--stdout", cwd=work, env={**ENV, **SERIAL})
    assert parallel.returncode == serial.returncode == 2
    assert parallel.stdout == serial.stdout == b""
    lines = parallel.stderr.decode().splitlines()
    assert len(lines) >= 4 and all(POSITIONED.match(line) for line in lines), lines
    for name in ("job-00012", "job-00077", "job-00149", "job-00120-copy"):
        assert any(line.startswith(f"blueprints/{name}.yaml:") for line in lines), name
    assert parallel.stderr == serial.stderr
    check = run_mpigen("check", cwd=work, env=ENV)
    assert (check.returncode, check.stderr) == (2, serial.stderr)


# --- 5. the example GitHub Actions workflow ------------------------------------------------------

WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"
FAKE_GH = """#!{python}
import json, os, sys
args = sys.argv[1:]
body = None
if "--body-file" in args:
    with open(args[args.index("--body-file") + 1], encoding="utf-8") as handle:
        body = handle.read()
with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")
if "--edit-last" in args and os.environ.get("FAKE_GH_NO_COMMENT"):
    print("no comments found for current user", file=sys.stderr)
    sys.exit(1)
"""


def workflow_job() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data["jobs"]["mpigen"]


def test_workflow_triggers_on_the_files_mpigen_reads():
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = data.get("on", data.get(True))  # PyYAML reads the key `on` as true
    patterns = on["pull_request"]["paths"]
    for path in ("mpigen.yaml", "blueprints/x.yaml", "overlays/dev/overlay.yaml", "rendered/dev/kustomization.yaml"):
        assert any(re.fullmatch(p.replace("**", ".*"), path) for p in patterns), path
    assert data["permissions"]["pull-requests"] == "write"
    checkout = next(s for s in workflow_job()["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0


class Actions:
    """The workflow's run: steps, run as GitHub runs them, in a clone with origin/main."""

    def __init__(self, tmp_path: Path, work: Path):
        self.work = work
        self.summary = tmp_path / "step-summary.md"
        self.summary.write_text("")
        self.log = tmp_path / "gh.log"
        fake = tmp_path / "fakebin"
        fake.mkdir()
        (fake / "gh").write_text(FAKE_GH.format(python=sys.executable))
        (fake / "gh").chmod(0o755)
        values = {"github.base_ref": "main", "github.event.pull_request.number": "7", "github.token": "fake-token"}
        job = workflow_job()
        self.env = {**ENV, "PATH": os.pathsep.join([str(fake), str(BIN), ENV.get("PATH", "")]),
                    "GITHUB_STEP_SUMMARY": str(self.summary), "FAKE_GH_LOG": str(self.log), "CI": "true"}
        for key, value in job["env"].items():
            self.env[key] = re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: values[m.group(1)], str(value))
        assert self.env["BASE_REF"] == "main" and self.env["PR_NUMBER"] == "7"
        self.steps = [s for s in job["steps"] if "run" in s and s.get("name") != "Install mpigen"]
        assert [s["name"] for s in self.steps] == ["Validate blueprints and overlays", "Rendered output is up to date",
                                                   "What changes on the clusters"]

    def run(self, name: str, **extra_env) -> subprocess.CompletedProcess:
        step = next(s for s in self.steps if s["name"] == name)
        return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=self.work, env={**self.env, **extra_env},
                              capture_output=True, text=True, timeout=60)

    def gh_calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]


def pull_request(tmp_path: Path, *changes, rerender: bool = True) -> Actions:
    """A clone of a repository whose main holds the render, on a branch with the changes,
    committed (re-rendered or not)."""
    origin = make_repo(tmp_path / "origin")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "config", "user.name", "Test User")
    git(work, "config", "user.email", "test@example.com")
    git(work, "checkout", "-q", "-b", "pr-7")
    for change in changes:
        edit(work, change)
    if rerender:
        assert mpigen(work, "render").code == 0
    commit_all(work, "the pull request")
    return Actions(tmp_path, work)


def test_workflow_on_a_change_applied_in_place(tmp_path):
    actions = pull_request(tmp_path, WORKER_CPU)
    validate = actions.run("Validate blueprints and overlays")
    assert validate.returncode == 0, validate.stderr
    check = actions.run("Rendered output is up to date")
    assert check.returncode == 0, check.stdout + check.stderr
    diff = actions.run("What changes on the clusters")
    assert diff.returncode == 0, diff.stderr
    report = (actions.work / "mpigen-diff.md").read_text(encoding="utf-8")
    assert report.startswith("### mpigen diff: `origin/main (")
    assert "| ml-dev/intel-pi | dev |" in report and "| hpc/intel-pi | prod |" in report
    assert "[!WARNING]" not in report
    assert actions.summary.read_text(encoding="utf-8") == report
    calls = actions.gh_calls()
    assert calls == [{"args": ["pr", "comment", "7", "--body-file", "mpigen-diff.md", "--edit-last"],
                      "body": report}]


def test_workflow_on_an_immutable_change_fails_after_posting(tmp_path):
    actions = pull_request(tmp_path, IMAGE)
    assert actions.run("Validate blueprints and overlays").returncode == 0
    assert actions.run("Rendered output is up to date").returncode == 0
    diff = actions.run("What changes on the clusters", FAKE_GH_NO_COMMENT="1")  # no earlier comment to edit
    assert diff.returncode == 1, diff.stderr
    report = (actions.work / "mpigen-diff.md").read_text(encoding="utf-8")
    assert "> [!WARNING]" in report and "spec.template" in report
    assert actions.summary.read_text(encoding="utf-8") == report
    calls = actions.gh_calls()
    assert [c["args"] for c in calls] == [["pr", "comment", "7", "--body-file", "mpigen-diff.md", "--edit-last"],
                                          ["pr", "comment", "7", "--body-file", "mpigen-diff.md"]]
    assert all(c["body"] == report for c in calls)


def test_workflow_fails_when_the_branch_forgot_to_render(tmp_path):
    actions = pull_request(tmp_path, WORKER_CPU, rerender=False)
    assert actions.run("Validate blueprints and overlays").returncode == 0
    check = actions.run("Rendered output is up to date")
    assert check.returncode == 1
    assert f"+++ b/{OUT}/dev/ml-dev/statefulset-intel-pi-worker.yaml" in check.stdout
    assert f"mpigen: {OUT} is stale: 3 changed files;" in check.stderr


def test_workflow_diff_step_stops_on_invalid_input_without_posting(tmp_path):
    actions = pull_request(tmp_path, (INTEL, "  workers: 2\n", "  workers: 0\n"), rerender=False)
    assert actions.run("Validate blueprints and overlays").returncode == 2
    diff = actions.run("What changes on the clusters")
    assert diff.returncode == 2
    assert POSITIONED.match(diff.stderr)
    assert actions.gh_calls() == []
    assert actions.summary.read_text(encoding="utf-8") == ""


# --- 6. pre-commit hooks ------------------------------------------------------------------------

HOOKS = ROOT / ".pre-commit-hooks.yaml"
# pre-commit's manifest schema (pre_commit/clientlib.py, MANIFEST_HOOK_DICT) and languages.
REQUIRED = {"id": str, "name": str, "entry": str, "language": str}
OPTIONAL = {"alias": str, "files": str, "exclude": str, "types": list, "types_or": list, "exclude_types": list,
            "additional_dependencies": list, "args": list, "always_run": bool, "fail_fast": bool,
            "pass_filenames": bool, "description": str, "language_version": str, "log_file": str,
            "require_serial": bool, "stages": list, "verbose": bool, "minimum_pre_commit_version": str}
LANGUAGES = {"conda", "coursier", "dart", "docker", "docker_image", "dotnet", "fail", "golang", "haskell", "julia",
             "lua", "node", "perl", "pygrep", "python", "python_venv", "r", "ruby", "rust", "script", "swift",
             "system"}


def hooks() -> list[dict]:
    return yaml.safe_load(HOOKS.read_text(encoding="utf-8"))


def test_pre_commit_manifest_follows_the_schema():
    manifest = hooks()
    assert isinstance(manifest, list) and manifest
    ids = [hook.get("id") for hook in manifest]
    assert ids == ["mpigen-validate", "mpigen-render", "mpigen-check"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    for hook in manifest:
        assert isinstance(hook, dict)
        for key, kind in REQUIRED.items():
            assert isinstance(hook.get(key), kind) and hook[key], (hook.get("id"), key)
        assert set(hook) <= set(REQUIRED) | set(OPTIONAL), set(hook) - set(REQUIRED) - set(OPTIONAL)
        for key, kind in OPTIONAL.items():
            if key in hook:
                assert isinstance(hook[key], kind), (hook["id"], key)
        assert hook["language"] in LANGUAGES
        assert hook["pass_filenames"] is False  # mpigen reads mpigen.yaml, not the files of the commit
        # language: python installs this repository (pip install .): the entry must be its script.
        assert shlex.split(hook["entry"])[0] in scripts
        files = re.compile(hook["files"])  # pre-commit uses re.search on paths relative to the root
        for path in ("mpigen.yaml", "blueprints/x.yaml", "blueprints/team/x.yml", "overlays/dev/overlay.yaml"):
            assert files.search(path), (hook["id"], path)
        for path in ("README.md", "mpigen/cli.py", "docs/overlays.md"):
            assert not files.search(path), (hook["id"], path)
        if "exclude" in hook:
            re.compile(hook["exclude"])


def run_hook(hook_id: str, cwd: Path) -> Run:
    """The hook's entry as pre-commit runs it with pass_filenames: false (no file arguments)."""
    hook = next(h for h in hooks() if h["id"] == hook_id)
    command = shlex.split(hook["entry"]) + list(hook.get("args", []))
    path = os.pathsep.join([str(BIN), ENV.get("PATH", "")])
    executable = shutil.which(command[0], path=path)
    if executable is None:
        pytest.skip(f"{command[0]} is not installed next to {sys.executable}")
    done = subprocess.run([executable, *command[1:]], cwd=cwd, env={**ENV, "PATH": path}, capture_output=True)
    return Run(done.returncode, done.stdout.decode(), done.stderr.decode())


def test_pre_commit_hooks_in_the_example_repository(tmp_path):
    root = make_repo(tmp_path / "example", output=None)  # mpigen.yaml as it is: output golden/overlays
    assert (root / "golden" / "overlays" / "dev" / "kustomization.yaml").is_file()
    validate = run_hook("mpigen-validate", root)
    assert validate.code == 0, validate.err
    assert validate.err == f"mpigen: {len(EXAMPLES)} blueprints valid under {len(ENVIRONMENTS)} overlays\n"
    before = snapshot(root)
    render = run_hook("mpigen-render", root)
    assert render.code == 0, render.err
    assert git(root, "status", "--porcelain") == ""  # up to date: pre-commit lets the commit through
    assert {k: v[2] for k, v in snapshot(root).items()} == {k: v[2] for k, v in before.items()}
    check = run_hook("mpigen-check", root)
    assert check.code == 0, check.out + check.err
    # A blueprint changed without rendering: the render hook changes the output (pre-commit then
    # stops the commit so that it can be added), the check hook fails until it is.
    edit(root, WORKER_CPU)
    assert run_hook("mpigen-check", root).code == 1
    render = run_hook("mpigen-render", root)
    assert render.code == 0
    changed = sorted(line[3:] for line in git(root, "status", "--porcelain").splitlines())
    assert changed == ["blueprints/intel-pi.yaml", "golden/overlays/.mpigen-index",
                       "golden/overlays/dev/ml-dev/statefulset-intel-pi-worker.yaml",
                       "golden/overlays/prod/hpc/statefulset-intel-pi-worker.yaml"]
    assert run_hook("mpigen-check", root).code == 0
