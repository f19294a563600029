"""A target per group of jobs (issue 53), through the command line: an environment whose jobs
render with the targets its rules give them, each object valid for its own target (the
schemas and models of mpigen.review.schemas, as `mpigen validate --kube-version` checks them,
and the JobSet's rules of tests/support/failure_policies.py), the objects a target renders once
per environment there once; under flux, every object applied by exactly one Kustomization;
each target's checks judging its own jobs; and a rule that selects no job warned of at its
position, as an unused patch is."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from mpigen.review.schemas import validate_object
from tests.support.failure_policies import jobset_errors
from tests.support.kueue_admission import KUEUE_JOB
from tests.support.overlays import CONFIG_HEAD, add_blueprint, at, overlay
from tests.support.text import write

VALIDATORS: dict = {}
MIXED = """\
target: jobset
targets:
  - jobs: {name: gpt-*}
    target: trainjob
  - jobs: {labelSelector: "team=vision"}
    target: mpijob
"""
# The kind of the object that is each target's workload, and the job it renders it for.
WORKLOAD = {"JobSet": "jobset", "TrainJob": "trainjob", "MPIJob": "mpijob", "Job": "static"}


def mixed_repository(config: str = "withCRD: true\n") -> None:
    for name in ("vit-a", "vit-b", "gpt-neox"):
        add_blueprint(name)
    add_blueprint("resnet", labels={"team": "vision"})
    overlay("mixed", MIXED)
    write("mpigen.yaml", CONFIG_HEAD + "overlays: [mixed]\n" + config)


def test_each_job_renders_with_its_rules_target_and_every_object_is_valid_for_it(cli):
    mixed_repository()
    done = cli("render", "--stdout")
    assert done.returncode == 0 and done.lines("warning") == [], done.stderr
    objects = done.objects()
    workloads = {obj["metadata"]["labels"]["mpigen.dev/job"]: obj["kind"] for obj in objects
                 if obj["kind"] in WORKLOAD}
    assert workloads == {"vit-a": "JobSet", "vit-b": "JobSet", "gpt-neox": "TrainJob", "resnet": "MPIJob"}
    for obj in objects:
        status, errors = validate_object(obj, "1.30", VALIDATORS)
        assert status == "valid", (obj["kind"], obj["metadata"]["name"], errors[:5])
        if obj["kind"] == "JobSet":
            assert jobset_errors(obj["spec"]) == [], obj["metadata"]["name"]
    kinds = Counter(obj["kind"] for obj in objects)
    # the MPIJob CRD (mpigen.yaml's withCRD, for the environment's mpijob jobs) once; the
    # trainjob job's runtime with it
    assert kinds["CustomResourceDefinition"] == 1 and kinds["TrainingRuntime"] == 1


def test_a_flag_renders_every_job_with_its_target_whatever_the_rules(cli):
    mixed_repository("")
    done = cli("render", "--stdout", "--target", "static")
    assert done.returncode == 0, done.stderr
    assert {obj["kind"] for obj in done.objects()} & set(WORKLOAD) == {"Job"}


def test_under_flux_each_object_is_applied_by_one_kustomization(cli):
    """The static jobs' steps (workers, then launcher, a chain per job), the trainjob jobs'
    (runtimes, then TrainJobs, per environment), the jobset job's folder and the alerts' beside
    them, and the environment's folder itself applied by none: its kustomization.yaml lists
    every object, steps included."""
    add_blueprint("vit-a")
    add_blueprint("gpt")
    add_blueprint("bert", runPolicy={"cleanPodPolicy": "Running"})
    write("mpigen.yaml", CONFIG_HEAD + "output: out\ngitops: flux\nflux: {}\n"
                         "monitoring: {runbookURL: 'https://git.example.com/docs/monitoring.md'}\n"
                         "targets:\n  - jobs: {name: vit-*}\n    target: jobset\n"
                         "  - jobs: {name: gpt}\n    target: trainjob\n")
    done = cli("render")
    assert done.returncode == 0 and done.lines("warning") == [], done.stderr
    kustomizations = [doc for doc in yaml.safe_load_all(Path("flux/kustomizations.yaml").read_text())]
    paths = [Path(doc["spec"]["path"]) for doc in kustomizations]
    assert Path("out") not in paths
    files = [p for p in Path("out").rglob("*.yaml") if p.name != "kustomization.yaml"]
    assert files
    for file in files:
        appliers = [path for path in paths if path in file.parents]
        assert len(appliers) == 1, (file, appliers)
    by_path = {Path(doc["spec"]["path"]).relative_to("out").as_posix(): doc for doc in kustomizations}
    assert set(by_path) == {"default/bert/workers", "default/bert/launcher", "runtimes", "trainjobs", "jobset",
                            "alerts"}
    for first, then in (("default/bert/workers", "default/bert/launcher"), ("runtimes", "trainjobs")):
        assert by_path[first]["spec"]["wait"] is True and by_path[then]["spec"]["wait"] is False
        assert by_path[then]["spec"]["dependsOn"] == [{"name": by_path[first]["metadata"]["name"]}]
    assert "dependsOn" not in by_path["jobset"]["spec"] and by_path["jobset"]["spec"]["wait"] is False
    jobsets = [p.name for p in Path("out/jobset/default").iterdir() if p.name.startswith("jobset-")]
    assert len(jobsets) == 1 and jobsets[0].startswith("jobset-vit-a-")  # named after the run under flux


def test_each_target_checks_its_own_jobs(cli):
    """`held` on a queued job is refused on static (two workloads: mpigen.render.static.checks)
    and taken on jobset: a rule that gives the job jobset makes validate and render pass."""
    write("blueprints/vit.yaml", KUEUE_JOB.replace("spec:\n  image", "spec:\n  state: held\n  image"))
    write("mpigen.yaml", CONFIG_HEAD)
    done = cli("validate")
    assert done.returncode == 2 and "spec.state: held with --target static" in done.stderr
    write("mpigen.yaml", CONFIG_HEAD + "targets:\n  - jobs: {labelSelector: team!=b}\n    target: jobset\n")
    done = cli("validate", "--strict")
    assert done.returncode == 0, done.stderr
    done = cli("render", "--stdout")
    assert done.returncode == 0 and [obj["kind"] for obj in done.objects()][-1] == "JobSet", done.stderr


def test_a_rule_that_selects_no_job_warns_at_its_position_and_fails_strict(cli):
    add_blueprint("vit-a")
    text = overlay("env", "targets:\n  - jobs: {name: vit-b*}\n    target: jobset\n")
    config = write("mpigen.yaml", CONFIG_HEAD + "overlays: [env]\noutput: out\n"
                                  "targets:\n  - jobs: {labelSelector: queue}\n    target: mpijob\n")
    done = cli("render", "--stdout")
    assert done.returncode == 0
    assert done.lines("warning") == [
        f"{at('mpigen.yaml', config, 'jobs: {labelSelector')}: warning: targets[0] selects no job, so it gives no "
        "job the target mpijob; no blueprint's labels match labelSelector 'queue'; check its jobs",
        f"{at('overlays/env/overlay.yaml', text, 'jobs: {name')}: warning: targets[0] selects no job, so it gives "
        "no job the target jobset; no job is named 'vit-b*'; did you mean 'vit-a'? (jobs.name matches "
        "metadata.name, a shell-style glob)"]
    done = cli("render", "-o", "out", "--strict")
    assert done.returncode == 2 and not Path("out").exists()
    # a run of named files may leave mpigen.yaml's jobs out: its rules are not warned of there
    done = cli("render", "blueprints/vit-a.yaml", "--overlay", "env", "--stdout")
    assert [line.split(": warning: ")[0] for line in done.lines("warning")] == [
        at("overlays/env/overlay.yaml", text, "jobs: {name")]
