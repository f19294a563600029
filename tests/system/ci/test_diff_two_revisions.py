"""`mpigen diff --base A --head B` (and `mpigen diff A B`): two commits compared without a
checkout, and what is wrong when there is no revision to read: outside git, in a repository
with no commits, an unknown revision.

Every case works in a small user repository built by the test (tests/support/ci_repository):
main holds the examples rendered and committed; the intel-pi example runs 2 workers in
prod (dev's overlay sets every job to 1 worker).
"""

from __future__ import annotations

import shutil

from tests.support.ci_repository import WORKERS, commit_all, edit, git, make_repo, mpigen, no_git
from tests.support.output_machine import NOBODY, as_nobody, chown_tree, sticky_folder


def more_workers_committed(ci_repository):
    """A branch `feature` whose one commit gives intel-pi 3 workers, rendered; the working
    tree then goes back to main, so that only the revisions hold the change."""
    git(ci_repository, "checkout", "-q", "-b", "feature")
    edit(ci_repository, WORKERS)
    assert mpigen(ci_repository, "render").code == 0
    commit_all(ci_repository, "intel-pi: 3 workers")
    git(ci_repository, "checkout", "-q", "main")
    return git(ci_repository, "rev-parse", "main").strip()[:12], git(ci_repository, "rev-parse", "feature").strip()[:12]


def test_two_commits_are_compared_without_a_checkout(ci_repository):
    main, feature = more_workers_committed(ci_repository)
    run = mpigen(ci_repository, "diff", "--base", "main", "--head", "feature")
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    assert lines[0] == "job hpc/intel-pi (env prod)"
    assert "  workers 2 -> 3" in lines and "      spec.replicas: 2 -> 3" in lines
    assert lines[-1] == (f"main ({main}) -> feature ({feature}): 1 job changed; objects: 0 added, 0 removed, "
                         "4 changed; 1 immutable change")
    # The working tree (main, checked out) is not the head: against it, nothing differs.
    assert mpigen(ci_repository, "diff", "--base", "main").out == "no changes\n"
    # Two positional revisions are --base and --head, as `git diff main feature`.
    assert mpigen(ci_repository, "diff", "main", "feature").out == run.out
    # The other way round, the change is undone; the same commit on both sides is no change.
    back = mpigen(ci_repository, "diff", "feature", "main")
    assert "  workers 3 -> 2" in back.out.splitlines()
    assert mpigen(ci_repository, "diff", "--base", "feature", "--head", "feature").out == "no changes\n"


def test_head_alone_is_compared_with_its_merge_base(ci_repository):
    main, feature = more_workers_committed(ci_repository)
    edit(ci_repository, WORKERS)  # the working tree's own edit is not the head's
    run = mpigen(ci_repository, "diff", "--head", "feature")
    assert run.code == 1, run.err
    assert run.out.splitlines()[-1].startswith(f"{main} -> feature ({feature}): 1 job changed;")


def test_two_folders_stay_folders_and_a_folder_beside_a_revision_is_refused(ci_repository):
    more_workers_committed(ci_repository)
    shutil.copytree(ci_repository / "rendered", ci_repository / "copy")
    assert mpigen(ci_repository, "diff", "rendered", "copy").out == "no changes\n"
    mixed = mpigen(ci_repository, "diff", "rendered", "feature")
    assert (mixed.code, mixed.out) == (2, "")
    assert mixed.err == ("error: feature: no such folder; give two rendered output folders, or two git "
                         "revisions: mpigen diff --base OLD_REV --head NEW_REV\n")
    both = mpigen(ci_repository, "diff", "main", "feature", "--base", "main")
    assert both.code == 2 and "not both" in both.err


def test_an_unknown_revision_is_named_with_its_fix(ci_repository):
    more_workers_committed(ci_repository)
    head = mpigen(ci_repository, "diff", "--base", "main", "--head", "no-such-branch")
    assert (head.code, head.out) == (2, "")
    assert head.err == ("error: unknown git revision 'no-such-branch'; fetch it (in CI: a full clone, e.g. "
                        "actions/checkout with fetch-depth: 0) or name another with --head\n")
    positional = mpigen(ci_repository, "diff", "main", "no-such-branch")
    assert (positional.code, positional.out) == (2, "")
    assert positional.err.startswith("error: unknown git revision 'no-such-branch', and no such folder; ")
    assert "Traceback" not in head.err + positional.err


def test_a_repository_without_commits_says_so(tmp_path):
    root = make_repo(tmp_path / "repo", commit=False)  # git init, rendered, nothing committed
    for args in (("diff",), ("diff", "--base", "HEAD"), ("diff", "main", "HEAD"), ("diff", "--head", "HEAD")):
        run = mpigen(root, *args)
        assert (run.code, run.out) == (2, ""), args
        assert run.err == ("error: the git repository has no commits yet, so there is no revision to compare "
                           "with: commit the blueprints and their render first (mpigen render, then git add and "
                           "git commit), or compare two folders instead: mpigen diff OLD_DIR NEW_DIR\n"), args


def test_outside_git_two_names_are_neither_folders_nor_revisions(tmp_path):
    root = make_repo(tmp_path / "plain", commit=False)
    shutil.rmtree(root / ".git")
    run = mpigen(root, "diff", "main", "HEAD", env=no_git(tmp_path))
    assert (run.code, run.out) == (2, "")
    assert run.err == ("error: main and HEAD: no such folders, and not inside a git repository; compare two "
                       "folders instead: mpigen diff OLD_DIR NEW_DIR\n")
    head = mpigen(root, "diff", "--head", "HEAD", env=no_git(tmp_path))
    assert head.err == ("error: not inside a git repository; compare two folders instead: "
                        "mpigen diff OLD_DIR NEW_DIR\n")


def test_diff_help_offers_only_its_own_cluster_flag(ci_repository):
    """(diff's --kubeconfig and --context said "with --server/--live"; --server is validate's.)"""
    diff_help, validate_help = mpigen(ci_repository, "diff", "--help").out, mpigen(ci_repository, "validate", "--help").out
    assert "--server" not in diff_help and "with --live: the kubeconfig" in " ".join(diff_help.split())
    assert "with --server: the kubeconfig" in " ".join(validate_help.split())


def test_a_repository_git_refuses_is_named_with_gits_words():
    """The checkout is nobody's but its .git is root's: git refuses it ("dubious ownership")
    when nobody runs it. That is the problem to name, not "not inside a git repository"."""
    with sticky_folder() as shared:
        root = make_repo(shared / "repo")
        chown_tree(root, NOBODY, NOBODY)
        chown_tree(root / ".git", 0, 0)
        run = as_nobody("diff", "--base", "main", cwd=root)
    out, err = run.stdout.decode(), run.stderr.decode()
    assert (run.returncode, out) == (2, ""), err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert errors[0].startswith("error: git cannot read this repository: detected dubious ownership in repository at ")
    assert errors[0].endswith("; fix that (git says how: git rev-parse --is-inside-work-tree), or compare two "
                              "folders instead: mpigen diff OLD_DIR NEW_DIR")
    assert "Traceback" not in err and "not inside a git repository" not in err
