"""A Kueue label edit on every target: a new run under a GitOps profile, an immutable change
for `mpigen diff` without one.

Kueue's webhook refuses, on a job that is not suspended (one Kueue has admitted: Kueue owns
a managed job's suspend), any change of the label kueue.x-k8s.io/queue-name, and the removal
of kueue.x-k8s.io/priority-class in any state (Kueue v0.19.2,
https://github.com/kubernetes-sigs/kueue/tree/v0.19.2: pkg/controller/jobframework/validation.go,
validateUpdateForQueueName and ValidateUpdateForWorkloadPriorityClassName, run by the webhook
of every job kind: pkg/controller/jobs/{job,jobset,mpijob,trainjob}; the StatefulSet's own in
pkg/controller/jobs/statefulset/statefulset_webhook.go). Edited in place, such a label stops
every sync of the folder; so under argocd and flux the edit must start a new run, as a spec
edit does, and `mpigen diff --fail-on immutable` (docs/cli.md: exit 1 only when a change would
be refused) must flag it when names stay (--gitops none).
"""

from __future__ import annotations

import json

import pytest
import yaml

from mpigen.render.targets import TARGETS
from tests.support.ci_repository import commit_all, git, init_git, mpigen
from tests.support.gitops import PROFILES, RUN_LABEL, blueprint
from tests.support.text import write

QUEUED = dict(scheduling={"queue": "team-a", "priorityClass": "high"}, runPolicy={"cleanPodPolicy": "Running"})
EDITS = {
    "queue": dict(QUEUED, scheduling={"queue": "team-b", "priorityClass": "high"}),
    "priorityClass removed": dict(QUEUED, scheduling={"queue": "team-a"}),
}
# The objects each target labels for Kueue (docs/targets.md, "How Kueue sees each"), the
# objects whose label changes.
LABELLED = {"static": ["Job", "StatefulSet"], "jobset": ["JobSet"], "mpijob": ["MPIJob"], "trainjob": ["TrainJob"]}
QUEUE_PATH = 'metadata.labels["kueue.x-k8s.io/queue-name"]'
PRIORITY_PATH = 'metadata.labels["kueue.x-k8s.io/priority-class"]'


def objects(folder) -> list[dict]:
    """Every object rendered into the folder (kustomization files left out)."""
    found = []
    for path in sorted(folder.rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            found += [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(doc, dict)]
    return found


def render_both(cli, tmp_path, target: str, gitops: str, edit: str) -> tuple[list[dict], list[dict]]:
    for side, spec in (("old", QUEUED), ("new", EDITS[edit])):
        write("bp/train.yaml", blueprint("train", **spec))
        done = cli("render", "bp", "-o", side, "--target", target, "--gitops", gitops)
        assert done.returncode == 0, done.stderr
    return objects(tmp_path / "old"), objects(tmp_path / "new")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("edit", EDITS)
def test_a_kueue_label_edit_is_a_new_run(cli, tmp_path, target, profile, edit):
    old, new = render_both(cli, tmp_path, target, profile, edit)
    old_runs = {o["metadata"]["labels"][RUN_LABEL] for o in old if RUN_LABEL in o["metadata"].get("labels", {})}
    new_runs = {o["metadata"]["labels"][RUN_LABEL] for o in new if RUN_LABEL in o["metadata"].get("labels", {})}
    assert len(old_runs) == 1 and len(new_runs) == 1 and old_runs != new_runs
    labelled = [o for o in new if o["kind"] in LABELLED[target]]
    assert sorted(o["kind"] for o in labelled) == LABELLED[target]
    old_names = {(o["kind"], o["metadata"]["name"]) for o in old}
    assert not {(o["kind"], o["metadata"]["name"]) for o in labelled} & old_names
    done = cli("diff", "old", "new", "--fail-on", "immutable")
    text = done.stdout.decode()
    assert done.returncode == 0, text
    assert "starts a new run" in text and "ends the run" in text
    assert "IMMUTABLE" not in text and text.rstrip().endswith("0 immutable changes")


def test_a_label_kueue_lets_change_keeps_the_run(cli, tmp_path):
    """The blueprint's own labels stay out of the run, beside Kueue's."""
    write("bp/train.yaml", blueprint("train", labels={"team": "a"}, **QUEUED))
    assert cli("render", "bp", "-o", "old", "--target", "jobset", "--gitops", "argocd").returncode == 0
    write("bp/train.yaml", blueprint("train", labels={"team": "b"}, **QUEUED))
    assert cli("render", "bp", "-o", "new", "--target", "jobset", "--gitops", "argocd").returncode == 0
    assert ({o["metadata"]["name"] for o in objects(tmp_path / "old")}
            == {o["metadata"]["name"] for o in objects(tmp_path / "new")})


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("edit, path, field, reason", [
    ("queue", QUEUE_PATH, "spec.scheduling.queue", "Kueue keeps the queue of a job that is not suspended"),
    ("priorityClass removed", PRIORITY_PATH, "spec.scheduling.priorityClass",
     "Kueue never lets a WorkloadPriorityClass be removed from a job"),
], ids=["queue", "priorityClass-removed"])
def test_diff_flags_an_in_place_kueue_label_change_as_immutable(cli, tmp_path, target, edit, path, field, reason):
    render_both(cli, tmp_path, target, "none", edit)
    done = cli("diff", "old", "new", "--fail-on", "immutable")
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 1, lines
    immutable = sorted(line for line in lines if line.startswith("IMMUTABLE: "))
    names = {"Job": "train-launcher", "StatefulSet": "train-worker"}  # the operator's (--gitops none)
    expected = sorted(f"IMMUTABLE: bp/train.yaml: {field}: Kueue refuses to change {path} of "
                      f"{kind} team/{names.get(kind, 'train')} once it has admitted the job: {reason}"
                      for kind in LABELLED[target])
    assert [line[:len(prefix)] for line, prefix in zip(immutable, expected)] == expected
    assert all(line.endswith("Argo CD and Flux will fail to sync it; delete and recreate the object (give the run "
                             "a new name) instead") for line in immutable)
    count = len(LABELLED[target])
    assert lines[-1].endswith(f"{count} immutable change" + ("s" if count > 1 else ""))
    assert cli("diff", "old", "new").returncode == 1  # --fail-on any: anything differs


def test_the_json_report_gives_the_blueprint_field_and_file(cli, tmp_path):
    render_both(cli, tmp_path, "jobset", "none", "queue")
    done = cli("diff", "old", "new", "--format", "json")
    (finding,) = json.loads(done.stdout)["jobs"][0]["immutable"]
    assert {k: finding[k] for k in ("object", "path", "field", "blueprint")} == {
        "object": "JobSet team/train", "path": QUEUE_PATH, "field": "spec.scheduling.queue",
        "blueprint": "bp/train.yaml"}
    assert finding["message"].startswith("bp/train.yaml: spec.scheduling.queue: Kueue refuses to change ")


def test_between_revisions_diff_names_the_blueprint_line(tmp_path):
    """`mpigen diff --base --head`: the line of the field in the blueprint, the new side's, or
    the old side's when the edit removed it."""
    root = tmp_path / "repo"
    root.mkdir()
    init_git(root)
    write(root / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [bp]\noutput: out\n")
    text = ("apiVersion: mpigen.dev/v1alpha1\nkind: MPIJobBlueprint\nmetadata:\n  name: train\n  namespace: team\n"
            "spec:\n  image: example.com/train:1\n  workers: 2\n  command: [python, train.py]\n"
            "  runPolicy: {cleanPodPolicy: Running}\n  scheduling:\n    queue: team-a\n    priorityClass: high\n")
    write(root / "bp" / "train.yaml", text)
    assert mpigen(root, "render").code == 0
    commit_all(root, "queued")
    write(root / "bp" / "train.yaml", text.replace("team-a", "team-b").replace("    priorityClass: high\n", ""))
    assert mpigen(root, "render").code == 0
    commit_all(root, "another queue, no priority class")
    run = mpigen(root, "diff", "--base", "HEAD~1", "--head", "HEAD", "--fail-on", "immutable")
    assert run.code == 1, run.err
    flagged = {line.split(": Kueue")[0] for line in run.out.splitlines() if line.startswith("IMMUTABLE: ")}
    # line 12 `    queue: team-b` (the head's), line 13 `    priorityClass: high` (the base's): value columns
    assert flagged == {"IMMUTABLE: bp/train.yaml:12:12: spec.scheduling.queue",
                       "IMMUTABLE: bp/train.yaml:13:20: spec.scheduling.priorityClass"}
    assert git(root, "status", "--porcelain") == ""
