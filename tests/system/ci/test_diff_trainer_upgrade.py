"""`mpigen diff` between two revisions of an environment whose overlay moves its clusters from
Kubeflow Trainer v2.3 to v2.4 (versions.trainer): the object diff shows each runtime mpigen
writes losing the PRRTE variables the v2.4 MPI plugin sets itself, changed in place; no TrainJob
is renamed, so the summary says no job restarts; and the Trainer upgrade says per TrainJob what
the clusters do with it, warning at the overlay's version line for a job kept suspended (state:
completed) and for one under a Kueue queue (Kueue holds it suspended while queued or
preempted), which v2.4 cannot resume (Trainer v2.4.0 release notes).

The repository is the examples' (tests/support/ci_repository), prod rendered with the
trainjob target under Argo CD and mpich-pi completed (suspended) there; vit-sweep-7
(blueprints/kueue-queued.yaml) has a queue, and a rule of prod's that renders it with trainjob
there too (mpigen.yaml's renders it with jobset).
"""

from __future__ import annotations

import json

from tests.support.ci_repository import MPICH, commit_all, make_repo, mpigen

PROD = "overlays/prod/overlay.yaml"


def repository(tmp_path):
    root = make_repo(tmp_path / "repo", render=False, commit=False)
    overlay = root / PROD
    # mpigen.yaml's targets rule gives the Kueue example jobset in every environment, before any
    # environment's target: prod's own rule, tried first, gives it trainjob there too
    overlay.write_text(overlay.read_text(encoding="utf-8") + "target: trainjob\ntargets:\n"
                       "  - jobs: {name: vit-sweep-7}\n    target: trainjob\n", encoding="utf-8")
    blueprint = root / MPICH
    text = blueprint.read_text(encoding="utf-8")
    blueprint.write_text(text.replace("\nspec:\n", "\nspec:\n  state: completed\n", 1), encoding="utf-8")
    assert mpigen(root, "render").code == 0
    commit_all(root, "prod on the trainjob target, mpich-pi completed")
    overlay.write_text(overlay.read_text(encoding="utf-8") + "versions:\n  trainer: v2.4\n", encoding="utf-8")
    run = mpigen(root, "render")
    assert run.code == 0, run.err
    return root


def test_moving_prod_to_trainer_v2_4_says_what_it_does_to_each_trainjob(tmp_path):
    root = repository(tmp_path)
    lines = (root / PROD).read_text(encoding="utf-8").splitlines()
    at = f"{PROD}:{len(lines)}:12"  # the value of versions.trainer, the file's last line
    run = mpigen(root, "diff", "--base", "main")
    assert run.code == 1, run.err
    out = run.out.splitlines()
    assert f"prod: versions.trainer v2.3 -> v2.4 ({at})" in out
    completed, queued = [line for line in out if line.startswith("warning: ")]
    assert completed.startswith(f"warning: {at}: TrainJob hpc/mpich-pi: suspended (state: completed): Trainer v2.4 "
                                "cannot resume an MPI TrainJob suspended before the upgrade")
    assert queued.startswith(f"warning: {at}: TrainJob team-a/vit-sweep-7: queued in team-a-gpus "
                             "(spec.scheduling.queue): Kueue holds it suspended until admitted, and again when "
                             "preempted; suspended, Trainer v2.4 cannot resume it")
    assert ("  TrainJob ml-team/resnet50-imagenet: a run going on keeps its JobSet (rebuilt only while suspended) "
            "and its runtime snapshot; the runtime changes in place, and a new run gets v2.4's launcher") in out
    assert "PRTE_MCA_plm_ssh_agent" in run.out and "(env dev)" not in run.out
    # The runtimes change in place, no TrainJob is added or removed: no run restarts.
    assert "  ~ changed TrainingRuntime ml-team/resnet50-imagenet" in out
    assert "Restarts: none" in out and " 0 added, 0 removed, " in out[-1]
    data = json.loads(mpigen(root, "diff", "--base", "main", "--format", "json").out)
    (upgrade,) = data["upgrades"]
    assert (upgrade["environment"], upgrade["key"], upgrade["old"], upgrade["new"], upgrade["at"]) == (
        "prod", "trainer", "v2.3", "v2.4", at)
    assert [o["object"] for o in upgrade["objects"] if o["warning"]] == ["TrainJob hpc/mpich-pi",
                                                                        "TrainJob team-a/vit-sweep-7"]
    assert data["restarts"] == []
    markdown = mpigen(root, "diff", "--base", "main", "--format", "markdown").out
    assert "Version upgrades:" in markdown and f"- prod: versions.trainer v2.3 → v2.4 ({at})" in markdown
    assert "- **Restarts**: none\n" in markdown


CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
output: out
target: trainjob
"""


def test_without_overlays_the_version_of_mpigen_yaml_is_the_environments(tmp_path):
    """A repository of one environment says its clusters' versions in mpigen.yaml: moving them
    there is an upgrade of that environment, told at mpigen.yaml's line."""
    root = make_repo(tmp_path / "repo", render=False, commit=False)
    (root / "mpigen.yaml").write_text(CONFIG, encoding="utf-8")
    blueprint = root / MPICH
    text = blueprint.read_text(encoding="utf-8")
    blueprint.write_text(text.replace("\nspec:\n", "\nspec:\n  state: completed\n", 1), encoding="utf-8")
    assert mpigen(root, "render").code == 0
    commit_all(root, "one environment on the trainjob target, mpich-pi completed")
    (root / "mpigen.yaml").write_text(CONFIG + "versions: {trainer: v2.4}\n", encoding="utf-8")
    assert mpigen(root, "render").code == 0
    run = mpigen(root, "diff", "--base", "main")
    assert run.code == 1, run.err
    at = f"mpigen.yaml:{len(CONFIG.splitlines()) + 1}:{len('versions: {trainer: ') + 1}"  # the version's value
    out = run.out.splitlines()
    assert f"versions.trainer v2.3 -> v2.4 ({at})" in out
    warnings = [line for line in out if line.startswith("warning: ")]
    assert warnings[0].startswith(f"warning: {at}: TrainJob hpc/mpich-pi: suspended (state: completed)")
    assert warnings[1].startswith(f"warning: {at}: TrainJob team-a/vit-sweep-7: queued in team-a-gpus")
