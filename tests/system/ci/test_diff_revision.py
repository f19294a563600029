"""`mpigen diff --base REV`: the working tree rendered against a git revision, the default
merge base, and overlays compared alone.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import json
import shutil

from tests.support.rendering import repository_objects
from tests.support.ci_repository import (ENVIRONMENTS, EXAMPLES, GPUS, MPICH_CPU, OUT, WORKER_CPU, commit_all, edit,
                                         git, make_repo, mpigen, no_git)


# --- 3. mpigen diff --base REV --------------------------------------------------------------------

def test_diff_against_a_revision_renders_the_working_tree(ci_repository):
    git(ci_repository, "checkout", "-q", "-b", "feature")
    edit(ci_repository, GPUS)  # not re-rendered: diff renders the working tree in memory
    short = git(ci_repository, "rev-parse", "main").strip()[:12]
    run = mpigen(ci_repository, "diff", "--base", "main")
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    assert lines[0] == "job ml-team/resnet50-imagenet (env prod)"
    assert "  GPUs 128 -> 64" in lines
    assert "  slots 128 -> 64" in lines
    assert lines[-1] == (f"main ({short}) -> working tree: 1 job changed; objects: 0 added, 0 removed, "
                         "3 changed; 1 immutable change")
    # Re-rendered and committed on the branch: the same report (the base side is read from git).
    assert mpigen(ci_repository, "render").code == 0
    commit_all(ci_repository, "fewer GPUs")
    again = mpigen(ci_repository, "diff", "--base", "main")
    assert (again.code, again.out) == (1, run.out)
    assert mpigen(ci_repository, "diff", "--base", "HEAD").out == "no changes\n"


def test_diff_defaults_to_the_merge_base_with_main(ci_repository):
    fork = git(ci_repository, "rev-parse", "HEAD").strip()
    git(ci_repository, "checkout", "-q", "-b", "feature")
    edit(ci_repository, WORKER_CPU)
    commit_all(ci_repository, "feature")
    # main moves on after the branch was made: its changes are not the branch's.
    git(ci_repository, "checkout", "-q", "main")
    edit(ci_repository, MPICH_CPU)
    assert mpigen(ci_repository, "render").code == 0
    commit_all(ci_repository, "main moves on")
    git(ci_repository, "checkout", "-q", "feature")
    run = mpigen(ci_repository, "diff")
    assert run.code == 1, run.err
    assert "intel-pi" in run.out and "mpich-pi" not in run.out
    assert run.out.splitlines()[-1].startswith(f"{fork[:12]} -> working tree: 2 jobs changed;")
    assert "mpich-pi" in mpigen(ci_repository, "diff", "--base", "main").out  # the tip of main: mpich-pi looks reverted


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


def test_diff_of_an_unknown_revision_exits_2(ci_repository):
    run = mpigen(ci_repository, "diff", "--base", "no-such-branch")
    assert run.code == 2 and run.out == ""
    assert run.err.startswith("error: unknown git revision 'no-such-branch';")
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
        assert run.err == ("error: not inside a git repository; compare two folders instead: "
                           "mpigen diff OLD_DIR NEW_DIR\n")


def test_diff_with_overlay_and_no_config_compares_only_that_overlay(ci_repository):
    """Without mpigen.yaml (blueprints/ by default), --overlay dev -o DIR owns only DIR/dev/.
    Without it, its targets rule is gone too: the Kueue example and the failure-policy example,
    rendered with jobset on main, render with static: each one's JobSet and the key generator's
    ServiceAccount, Role and RoleBinding removed (4 each), the operator's StatefulSet, Job,
    ServiceAccount, Role and RoleBinding added (5 each), the ConfigMap both have changed
    (rendering.JOBSET_OBJECTS, OPERATOR_OBJECTS); and the edited job's own change."""
    (ci_repository / "mpigen.yaml").unlink()
    edit(ci_repository, WORKER_CPU)  # changes dev and prod
    run = mpigen(ci_repository, "diff", "--overlay", "dev", "-o", OUT, "--base", "main")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out and "(env prod)" not in run.out
    assert "job ml-dev/vit-sweep-7 (env dev)" in run.out
    assert run.out.splitlines()[-1].endswith("3 jobs changed; objects: 10 added, 8 removed, 3 changed; "
                                             "0 immutable changes")


def test_diff_positional_arguments_are_the_two_folders(ci_repository):
    """diff --base renders the repository (mpigen.yaml, or blueprints/ with -o); its
    positional arguments are always OLD_DIR NEW_DIR, so a blueprint path is refused."""
    edit(ci_repository, WORKER_CPU)  # changes dev and prod
    run = mpigen(ci_repository, "diff", "--overlay", "dev", "-o", OUT, "--base", "main")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out and "(env prod)" not in run.out
    refused = mpigen(ci_repository, "diff", "blueprints", "--base", "main")
    assert refused.code == 2 and "not both" in refused.err


def test_diff_with_overlay_compares_only_that_overlay(ci_repository):
    """With mpigen.yaml, --overlay dev owns only <output>/dev/ (at b616916 it owned the whole
    folder, so every prod object was reported as removed)."""
    edit(ci_repository, WORKER_CPU)  # changes dev and prod
    run = mpigen(ci_repository, "diff", "--overlay", "dev")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out
    assert "(env prod)" not in run.out, run.out.splitlines()[-1]


def test_check_and_render_with_overlay_leave_other_overlays_alone(ci_repository):
    """(At b616916 `check --overlay dev` reported the prod files as extra and `render --overlay
    dev` deleted them.)"""
    check = mpigen(ci_repository, "check", "--overlay", "dev")
    render = mpigen(ci_repository, "render", "--overlay", "dev")
    assert render.code == 0
    deleted = git(ci_repository, "status", "--porcelain", "--", OUT)
    assert (check.code, deleted) == (0, ""), check.err + deleted[:300]


def test_diff_against_a_revision_without_the_output_folder_adds_everything(tmp_path):
    root = make_repo(tmp_path / "repo", render=False)  # main holds blueprints only
    git(root, "checkout", "-q", "-b", "feature")
    run = mpigen(root, "diff", "--format", "json")
    assert run.code == 1, run.err
    data = json.loads(run.out)
    # every example in every environment, each with all of its objects (derived from blueprints/)
    added = sum(len(repository_objects(example)) for example in EXAMPLES.values()) * len(ENVIRONMENTS)
    assert data["summary"] == {"jobs": len(EXAMPLES) * len(ENVIRONMENTS), "added": added, "removed": 0,
                               "changed": 0, "immutable": 0}
    assert sorted((job["environment"], job["job"]) for job in data["jobs"]) == sorted(
        (env, name) for env in ENVIRONMENTS for name in EXAMPLES)
    for job in data["jobs"]:
        assert job["newRun"]
        assert sorted((o["kind"], o["name"]) for o in job["added"]) == sorted(
            (kind, job["job"] + suffix) for kind, suffix in repository_objects(EXAMPLES[job["job"]])), job["job"]
    assert {job["environment"] for job in data["jobs"]} == {"dev", "prod"}
    text = mpigen(root, "diff", "--fail-on", "immutable")
    assert text.code == 0
    assert "starts a new run: a launcher Job is created" in text.out
