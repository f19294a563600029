"""The upgrade path of docs/gitops.md ("Upgrading the cluster or mpigen"), under Argo CD and
Flux: the clusters move from Kubeflow Trainer v2.3 to v2.4 and Git's `versions.trainer` with
them; `mpigen diff` says beforehand which jobs restart and which cannot resume, and the
cluster does what it said.

The cluster is tests/support/gitops_upgrade.py: the GitOps controller's sync (Argo CD's prune,
Flux's garbage collection of its last inventory), Kueue's webhook and admission, and the
Trainer's reconcile (runtime snapshot, JobSet Build, the JobSet webhook), each ported from its
source there. Three jobs on mpigen's runtimes: `train` runs on its TrainingRuntime, `queued`
waits in a Kueue queue, `shared` runs on a ClusterTrainingRuntime named by its content.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.ci_repository import commit_all, init_git, mpigen
from tests.support.gitops import PROFILES, blueprint
from tests.support.gitops_upgrade import Cluster

CONFIG = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noutput: out\ntarget: trainjob\n"
          "gitops: {profile}\n")
BLUEPRINTS = {"train": {}, "queued": {"scheduling": {"queue": "team-gpus"}},
              "shared": {"runtime": {"emit": "ClusterTrainingRuntime"}}}


def rendered(root) -> list[dict]:
    """The objects of the output folder (a GitOps controller's source)."""
    objects = []
    for path in sorted((root / "out").rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            objects += [o for o in yaml.safe_load_all(path.read_text(encoding="utf-8")) if o]
    return objects


def render(root, config: str) -> list[dict]:
    (root / "mpigen.yaml").write_text(config, encoding="utf-8")
    run = mpigen(root, "render")
    assert run.code == 0, run.err
    return rendered(root)


def trainjob_of(cluster: Cluster, job: str) -> dict:
    (found,) = [o for o in cluster.trainjobs().values() if o["metadata"]["labels"]["mpigen.dev/job"] == job]
    return found


def running_on_v2_3(tmp_path, profile: str) -> tuple:
    """The repository rendered for Trainer v2.3 and committed, and the cluster running it:
    train and shared started, queued held by Kueue."""
    root = tmp_path / "repo"
    (root / "blueprints").mkdir(parents=True)
    for name, fields in BLUEPRINTS.items():
        (root / "blueprints" / f"{name}.yaml").write_text(blueprint(name, workers=2, **fields), encoding="utf-8")
    init_git(root)
    config = CONFIG.format(profile=profile)
    cluster = Cluster()
    cluster.synced(render(root, config))
    commit_all(root, "three jobs on Trainer v2.3")
    for key in sorted(cluster.trainjobs()):
        cluster.reconciled(key, "v2.3")
    return root, config, cluster


@pytest.mark.parametrize("profile", PROFILES)
def test_a_trainer_upgrade_restarts_only_the_jobs_diff_names_and_holds_those_it_warns_of(tmp_path, profile):
    root, config, cluster = running_on_v2_3(tmp_path, profile)
    train, queued, shared = (trainjob_of(cluster, job) for job in ("train", "queued", "shared"))
    train_jobset = cluster.objects[("JobSet", "team", train["metadata"]["name"])]
    assert train["spec"]["suspend"] is False and queued["spec"]["suspend"] is True  # Kueue's webhook holds it
    assert cluster.objects[("JobSet", "team", queued["metadata"]["name"])]["spec"]["suspend"] is True

    # Step 2 of the path: Git moves to v2.4; diff says what the sync will do.
    new = render(root, config + "versions: {trainer: v2.4}\n")
    report = json.loads(mpigen(root, "diff", "--base", "main", "--format", "json").out)
    assert [(r["namespace"], r["job"], r["why"]) for r in report["restarts"]] == [
        ("team", "shared", "versions.trainer v2.3 -> v2.4")]
    # (under Flux each step's kustomize root reads as an environment of its own: the upgrade is told per root)
    assert {(up["key"], up["old"], up["new"]) for up in report["upgrades"]} == {("trainer", "v2.3", "v2.4")}
    warned = {o["object"] for up in report["upgrades"] for o in up["objects"] if o["warning"]}
    assert warned == {f"TrainJob team/{queued['metadata']['name']}"}
    text = mpigen(root, "diff", "--base", "main").out.splitlines()
    assert [line for line in text if line.startswith("Restarts: ")] == [
        f"Restarts: 1 job (their pods start again): team/shared{' (env trainjobs)' if profile == 'flux' else ''}: versions.trainer v2.3 -> v2.4"]

    # Step 3: the Trainer is v2.4 and the GitOps controller syncs the new render.
    created, changed, pruned = cluster.synced(new)
    assert ("TrainJob", "team", shared["metadata"]["name"]) in pruned  # its JobSet and pods go with it
    assert ("JobSet", "team", shared["metadata"]["name"]) not in cluster.objects
    assert {key[0] for key in created} == {"TrainJob", "ClusterTrainingRuntime"}
    assert ("TrainingRuntime", "team", train["metadata"]["name"]) in changed  # in place
    for key in sorted(cluster.trainjobs()):
        cluster.reconciled(key, "v2.4")
    # train runs on: the same TrainJob (its uid) and the JobSet it had, untouched.
    assert trainjob_of(cluster, "train")["metadata"]["uid"] == train["metadata"]["uid"]
    assert cluster.objects[("JobSet", "team", train["metadata"]["name"])] == train_jobset
    # shared is a new run: another TrainJob, whose JobSet starts from the beginning.
    assert trainjob_of(cluster, "shared")["metadata"]["uid"] != shared["metadata"]["uid"]
    restarted = {obj["metadata"]["labels"]["mpigen.dev/job"] for obj in cluster.trainjobs().values()
                 if obj["metadata"]["uid"] not in {train["metadata"]["uid"], queued["metadata"]["uid"]}}
    assert restarted == {r["job"] for r in report["restarts"]}
    # queued is admitted after the upgrade: the Trainer cannot resume it, as diff warned.
    key = ("TrainJob", "team", queued["metadata"]["name"])
    cluster.admitted(key)
    cluster.reconciled(key, "v2.4")
    # (refused at every reconcile from the upgrade on: a suspended JobSet is rebuilt, jobset.go Build)
    assert set(cluster.refused) == {f"JobSet team/{queued['metadata']['name']}: spec.replicatedJobs: Invalid value: "
                                    "field is immutable"}
    assert cluster.objects[("JobSet", "team", queued["metadata"]["name"])]["spec"]["suspend"] is True


@pytest.mark.parametrize("profile", PROFILES)
def test_a_new_run_of_a_held_job_runs_on_the_upgraded_trainer(tmp_path, profile):
    """What diff's warning advises for a job Kueue holds: a new run (spec.run), whose TrainJob
    snapshots the runtime as it is now and whose JobSet the Trainer builds afresh."""
    root, config, cluster = running_on_v2_3(tmp_path, profile)
    old = trainjob_of(cluster, "queued")
    cluster.synced(render(root, config + "versions: {trainer: v2.4}\n"))
    path = root / "blueprints" / "queued.yaml"
    path.write_text(blueprint("queued", workers=2, run="after-v2.4", **BLUEPRINTS["queued"]), encoding="utf-8")
    created, _, pruned = cluster.synced(render(root, config + "versions: {trainer: v2.4}\n"))
    assert ("TrainJob", "team", old["metadata"]["name"]) in pruned
    new = trainjob_of(cluster, "queued")
    key = ("TrainJob", "team", new["metadata"]["name"])
    assert key in created and new["spec"]["suspend"] is True
    cluster.reconciled(key, "v2.4")
    cluster.admitted(key)
    cluster.reconciled(key, "v2.4")
    assert cluster.refused == []
    assert cluster.objects[("JobSet", "team", new["metadata"]["name"])]["spec"]["suspend"] is False
