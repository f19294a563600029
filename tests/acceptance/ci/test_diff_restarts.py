"""`mpigen diff` names the jobs whose run going on a change restarts, and why, in its summary
(text, markdown, JSON): here under Argo CD, where a new run is new objects and Argo CD prunes
the old run's (tests/acceptance/gitops/test_upgrade_path.py follows that on the cluster).

An older mpigen's render is made by hand, as an older version's run hash would name the run:
the committed output of the same blueprint with another run in every name and label.
"""

from __future__ import annotations

import json

from tests.support.ci_repository import commit_all, git, init_git, mpigen
from tests.support.gitops import blueprint

CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noutput: out\ngitops: argocd\n"
OLD_RUN = "abc123"


def repository(tmp_path):
    root = tmp_path / "repo"
    (root / "blueprints").mkdir(parents=True)
    (root / "mpigen.yaml").write_text(CONFIG, encoding="utf-8")
    for name in ("a", "b"):
        (root / "blueprints" / f"{name}.yaml").write_text(blueprint(name), encoding="utf-8")
    init_git(root)
    assert mpigen(root, "render").code == 0
    return root


def rendered_by_an_older_mpigen(root, job: str) -> None:
    """The job's committed objects as an mpigen hashing runs otherwise wrote them."""
    run = next((root / "out").rglob(f"*{job}-*-launcher*.yaml")).name.split("-")[2]
    for path in (root / "out").rglob("*"):
        if path.is_file() and f"{job}-{run}" in path.name:
            text = path.read_text(encoding="utf-8").replace(f"{job}-{run}", f"{job}-{OLD_RUN}")
            text = text.replace(f"mpigen.dev/run: {run}", f"mpigen.dev/run: {OLD_RUN}")
            path.unlink()
            path.with_name(path.name.replace(f"{job}-{run}", f"{job}-{OLD_RUN}")).write_text(text, encoding="utf-8")
    kustomization = root / "out" / "kustomization.yaml"
    if kustomization.exists():
        kustomization.write_text(kustomization.read_text(encoding="utf-8").replace(f"{job}-{run}", f"{job}-{OLD_RUN}"),
                                 encoding="utf-8")


def test_a_run_an_older_mpigen_named_otherwise_restarts_because_mpigen_s_output_changed(tmp_path):
    root = repository(tmp_path)
    rendered_by_an_older_mpigen(root, "a")
    commit_all(root, "rendered by an older mpigen")
    assert git(root, "status", "--porcelain") == ""
    run = mpigen(root, "diff", "--base", "main")
    assert run.code == 1, run.err
    out = run.out.splitlines()
    assert "  starts a new run: a launcher Job is created" in out and "  ends the run: a launcher Job is deleted" in out
    assert ("Restarts: 1 job (their pods start again): team/a: mpigen's output changed: its blueprint, overlay "
            "and mpigen.yaml are as they were, and the mpigen that rendered the base renders them as another run") in out
    data = json.loads(mpigen(root, "diff", "--base", "main", "--format", "json").out)
    assert [(r["job"], r["why"].split(":")[0]) for r in data["restarts"]] == [("a", "mpigen's output changed")]
    markdown = mpigen(root, "diff", "--base", "main", "--format", "markdown").out
    assert "- **Restarts**: 1 job (their pods start again): team/a: mpigen's output changed" in markdown


def test_a_blueprint_edit_that_starts_a_new_run_is_named_with_its_cause(tmp_path):
    root = repository(tmp_path)
    commit_all(root, "two jobs")
    (root / "blueprints" / "b.yaml").write_text(blueprint("b", image="example.com/train:2"), encoding="utf-8")
    (root / "mpigen.yaml").write_text(CONFIG + "versions: {trainer: v2.4}\n", encoding="utf-8")  # no trainjob here
    run = mpigen(root, "diff", "--base", "main")
    assert run.code == 1, run.err
    assert [line for line in run.out.splitlines() if line.startswith("Restarts")] == [
        "Restarts: 1 job (their pods start again): team/b: its blueprint changed"]


def test_a_label_edit_restarts_nothing_and_says_nothing(tmp_path):
    root = repository(tmp_path)
    commit_all(root, "two jobs")
    (root / "blueprints" / "a.yaml").write_text(blueprint("a", labels={"team": "x"}), encoding="utf-8")
    run = mpigen(root, "diff", "--base", "main")
    assert run.code == 1, run.err
    assert not [line for line in run.out.splitlines() if line.startswith("restarts")]
