"""A queued job's life in Git under Kueue: queue, hold, release, stop (issue 45). The rendered
objects go through Kueue's own steps (tests.support.kueue_lifecycle: the job webhooks, the
update validation and ReconcileGenericJob of kubernetes-sigs/kueue v0.19.2, with file and line)
as Argo CD, Flux and kubectl apply them (tests.support.gitops_appliers), on every target
Kueue admits as one workload. Expected counts are worked out by hand from the scenario, never
by running the model twice."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.gitops import strings
from tests.support.gitops_appliers import Applier
from tests.support.health_checks import argo_cd_check, flux_health_exprs, flux_programs, flux_state
from tests.support.kueue_admission import KUEUE_JOB
from tests.support.kueue_lifecycle import GATE, Namespace, SUSPEND, Workload, gate_format_errors
from tests.support.paths import ROOT
from tests.support.rendering import render_text
from tests.support.text import pos, write

TARGETS = ("jobset", "trainjob", "mpijob")
KIND = {"jobset": "JobSet", "trainjob": "TrainJob", "mpijob": "MPIJob"}
HEALTH = {"jobset": ("jobset-health.yaml", "jobset.x-k8s.io_JobSet"),
          "trainjob": ("trainjob-health.yaml", "trainer.kubeflow.org_TrainJob"),
          "mpijob": ("mpijob-health.yaml", "kubeflow.org_MPIJob")}
HELD_GATE = "mpigen.dev/held"


def in_state(state: str, text: str = KUEUE_JOB) -> str:
    return text.replace("spec:\n  image", f"spec:\n  state: {state}\n  image")


def render(target: str, profile: str, state: str = "running") -> list[dict]:
    return render_text(in_state(state), target=target, gitops=profile)


def running(target: str, profile: str) -> tuple[Namespace, Applier]:
    """The queued job applied, queued, admitted by Kueue and running."""
    namespace, applier = Namespace(), Applier(profile)
    applier.apply(namespace, render(target, profile))
    namespace.settle()
    (job,) = namespace.jobs()
    assert not namespace.suspended(job) and namespace.started == 1 and namespace.quota_used() == 1
    return namespace, applier


def the_workload(namespace: Namespace) -> Workload:
    (workload,) = namespace.workloads.values()
    return workload


# --- stop ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", ("argocd", "flux"))
@pytest.mark.parametrize("target", TARGETS)
def test_completed_three_times_stops_the_run_once_and_releases_its_quota(target, profile):
    """`completed` is applied three times (self-heal, Flux's interval): the pods go once, the
    job and its Workload are deleted (the finalize path: the quota is free) and it never runs
    again."""
    namespace, applier = running(target, profile)
    for _ in range(3):
        applier.apply(namespace, render(target, profile, "completed"))
        namespace.settle()
    assert namespace.jobs() == [] and namespace.workloads == {} and namespace.quota_used() == 0
    assert (namespace.started, namespace.stopped) == (1, 1)
    assert applier.refusals == []


@pytest.mark.parametrize("target", TARGETS)
def test_nothing_in_git_names_a_workload(target):
    for profile in ("none", "argocd", "flux"):
        for state in ("running", "held", "completed"):
            objects = render(target, profile, state)
            assert not [o for o in objects if o["kind"] == "Workload"]
            assert not [s for s in strings(objects) if "prebuilt-workload-name" in s or s.startswith("workload-")]


@pytest.mark.parametrize("target", TARGETS)
def test_a_suspend_from_git_cannot_stop_a_queued_job(target):
    """What `completed` rendered before (the job, suspended in Git, still queued): each apply
    suspends it, its controller deletes the pods, and Kueue's step 7 resumes it ("Job admitted,
    unsuspending"): the run starts over three times and still runs."""
    namespace, applier = running(target, "argocd")
    suspended = copy.deepcopy(render(target, "argocd"))
    for obj in suspended:
        if obj["kind"] in SUSPEND:
            Namespace._set_suspend(obj, True)
    for _ in range(3):
        applier.apply(namespace, suspended)
        for key in list(namespace.objects):  # the job's controller acts on the suspend first
            if key[0] in SUSPEND:
                namespace.run_pods(key)
        namespace.settle()
    (job,) = namespace.jobs()
    assert not namespace.suspended(job) and (namespace.started, namespace.stopped) == (4, 3)


COMPANIONS = {"argocd": "argocd:\n  repoURL: https://git.example.com/ml/training.git\n  applications: companions\n",
              "flux": "flux:\n  sourceRef: flux-system\n  kustomizations: companions\n"}


@pytest.mark.parametrize("profile", ("argocd", "flux"))
@pytest.mark.parametrize("target", TARGETS)
def test_the_profiles_companions_prune(tmp_path, target, profile):
    """The stop is the controller's prune: mpigen's Application prunes, and so do its Kustomizations."""
    write(tmp_path / "blueprints" / "vit.yaml", KUEUE_JOB)
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: rendered\n"
                                    f"target: {target}\ngitops: {profile}\n{COMPANIONS[profile]}")
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    companions = [o for p in (tmp_path / "companions").glob("*.yaml") for o in yaml.safe_load_all(p.read_text())
                  if o and o["kind"] in ("Application", "Kustomization") and "spec" in o]
    assert companions
    for companion in companions:
        spec = companion["spec"]
        assert (spec["syncPolicy"]["automated"] if profile == "argocd" else spec)["prune"] is True


def test_without_a_profile_nothing_prunes_and_the_state_line_says_so(cli):
    """kubectl apply deletes nothing: the job would run on, so the render warns at spec.state."""
    namespace, applier = Namespace(), Applier("kubectl")
    applier.apply(namespace, render("jobset", "none"))
    namespace.settle()
    for _ in range(3):
        applier.apply(namespace, render("jobset", "none", "completed"))
        namespace.settle()
    assert namespace.started == 1 and namespace.stopped == 0 and namespace.quota_used() == 1
    text = write("bp/vit.yaml", in_state("completed"))
    done = cli("render", "bp", "--stdout", "--target", "jobset")
    assert done.returncode == 0
    line, column = pos(text, "completed")
    (warning,) = done.lines("warning")
    assert warning.startswith(f"bp/vit.yaml:{line}:{column}: warning: spec.state: completed on a queued job")
    assert "kubectl delete" in warning and "-l mpigen.dev/job=vit" in warning


# --- hold and release ---------------------------------------------------------------------------

def _health(target: str, live: dict) -> tuple[dict, str]:
    name, key = HEALTH[target]
    programs = flux_programs(next(e for e in flux_health_exprs(ROOT / "docs" / "flux" / name)
                                  if e["kind"] == KIND[target]))
    return argo_cd_check(ROOT / "docs" / "argocd" / name, f"resource.customizations.health.{key}")(live), \
        flux_state(programs, live)


def held(target: str, profile: str) -> tuple[Namespace, Applier]:
    """The held job applied: created, suspended by the webhook, its Workload gated."""
    namespace, applier = Namespace(), Applier(profile)
    applier.apply(namespace, render(target, profile, "held"))
    namespace.settle()
    (job,) = namespace.jobs()
    assert job["metadata"]["annotations"][GATE] == HELD_GATE and namespace.suspended(job)
    assert the_workload(namespace).gate == HELD_GATE and not the_workload(namespace).admitted
    assert namespace.started == 0 and namespace.quota_used() == 0
    return namespace, applier


@pytest.mark.parametrize("target", TARGETS)
def test_a_held_job_reads_as_queued_not_failed(target):
    namespace, _ = held(target, "argocd")
    (job,) = namespace.jobs()
    argo, flux = _health(target, job)
    assert argo["status"] == "Suspended" and flux == "inProgress"


@pytest.mark.parametrize("target", TARGETS)
def test_held_then_running_under_argocd_starts_that_same_job(target):
    namespace, applier = held(target, "argocd")
    (job,) = namespace.jobs()
    released = render(target, "argocd")
    assert sorted(o["metadata"]["name"] for o in released) == \
        sorted(o["metadata"]["name"] for o in render(target, "argocd", "held"))
    applier.apply(namespace, released)
    namespace.settle()
    (same,) = namespace.jobs()
    assert same["metadata"]["uid"] == job["metadata"]["uid"] and GATE not in same["metadata"].get("annotations", {})
    assert the_workload(namespace).admitted and namespace.started == 1 and applier.refusals == []


def test_held_then_running_under_flux_releases_a_trainjob_in_place():
    """Flux applies a TrainJob whole every time (no ssa: IfNotPresent, docs/gitops.md section 9):
    its gate goes as under Argo CD, the same job."""
    namespace, applier = held("trainjob", "flux")
    (job,) = namespace.jobs()
    applier.apply(namespace, render("trainjob", "flux"))
    namespace.settle()
    (same,) = namespace.jobs()
    assert same["metadata"]["uid"] == job["metadata"]["uid"] and GATE not in same["metadata"].get("annotations", {})
    assert the_workload(namespace).admitted and namespace.started == 1 and applier.refusals == []


@pytest.mark.parametrize("target", ("jobset", "mpijob"))
def test_held_then_running_under_flux_is_the_run_queued_anew(target):
    """Flux skips an existing object whose Git version says ssa: IfNotPresent (a running JobSet or
    MPIJob), so it could never take the gate off the held object: the release is a new run, the
    held one (never admitted, never started) pruned."""
    namespace, applier = held(target, "flux")
    released, still_held = render(target, "flux"), render(target, "flux", "held")
    old_run, new_run = (objects[0]["metadata"]["labels"]["mpigen.dev/run"] for objects in (still_held, released))
    assert old_run != new_run
    same_names = json.loads(json.dumps(released).replace(new_run, old_run))  # what one run would be
    kept = copy.deepcopy(namespace)
    Applier("flux", applied=copy.deepcopy(applier.applied)).apply(kept, same_names)
    kept.settle()
    assert the_workload(kept).gate == HELD_GATE and kept.started == 0  # held for ever
    applier.apply(namespace, released)
    namespace.settle()
    (job,) = namespace.jobs()
    assert new_run in job["metadata"]["name"] and GATE not in job["metadata"].get("annotations", {})
    assert the_workload(namespace).admitted and (namespace.started, namespace.stopped) == (1, 0)


@pytest.mark.parametrize("target", TARGETS)
def test_holding_a_running_job_is_refused_and_it_runs_on(target):
    namespace, applier = running(target, "argocd")
    applier.apply(namespace, render(target, "argocd", "held"))
    namespace.settle()
    assert applier.refusals == ["cannot add admission gate after creation"]
    (job,) = namespace.jobs()
    assert not namespace.suspended(job) and namespace.started == 1


def test_diff_says_a_running_job_cannot_be_held(tmp_path):
    root = tmp_path
    write(root / "blueprints" / "vit.yaml", KUEUE_JOB)
    write(root / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\n"
                                "output: rendered\ntarget: jobset\ngitops: argocd\n")
    assert run_mpigen("render", cwd=root).returncode == 0
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "running"]):
        subprocess.run(["git", *command], cwd=root, check=True)
    text = write(root / "blueprints" / "vit.yaml", in_state("held"))
    done = run_mpigen("diff", "--base", "HEAD", cwd=root)
    assert done.returncode == 1
    line, column, report = *pos(text, "held"), done.stdout.decode()
    assert f"IMMUTABLE: blueprints/vit.yaml:{line}:{column}: spec.state: Kueue refuses to change " \
           'metadata.annotations["kueue.x-k8s.io/admission-gated-by"]' in report
    assert "a job that exists cannot be held" in report


@pytest.mark.parametrize("target, message", [
    ("jobset", "spec.state: held keeps a job in its Kueue queue"),
    ("static", "spec.state: held keeps a job in its Kueue queue")])
def test_held_without_a_queue_is_refused_at_the_state_line(cli, target, message):
    text = write("bp/vit.yaml", in_state("held").replace("  scheduling:\n    queue: team-a-gpus\n", ""))
    done = cli("render", "bp", "--stdout", "--target", target)
    line, column = pos(text, "held")
    assert done.returncode == 2 and done.stdout == b""
    assert f"bp/vit.yaml:{line}:{column}: error: {message}" in done.stderr


def test_static_refuses_held_and_warns_of_two_workloads(cli):
    """Kueue v0.19.2 apis/config/v1beta2/defaults.go: with no integrations.frameworks configured,
    Kueue manages batch/job alone, so a static job's worker StatefulSet is no workload at all
    there, and where the statefulset integration is on it is a second workload beside the
    launcher's Job (pkg/controller/jobs/statefulset, pkg/controller/jobs/job)."""
    text = write("bp/vit.yaml", in_state("held"))
    done = cli("render", "bp", "--stdout", "--target", "static")
    line, column = pos(text, "held")
    assert done.returncode == 2
    assert f"bp/vit.yaml:{line}:{column}: error: spec.state: held with --target static" in done.stderr
    assert "use --target jobset" in done.stderr
    text = write("bp/vit.yaml", KUEUE_JOB)
    done = cli("render", "bp", "--stdout", "--target", "static")
    line, column = pos(text, "queue")
    # its cleanPodPolicy Running warns too, with no GitOps profile to act on it (render/static/checks.py)
    (warning,) = [w for w in done.lines("warning") if ": warning: spec.runPolicy.cleanPodPolicy:" not in w]
    assert warning.startswith(f"bp/vit.yaml:{line}:{column}: warning: spec.scheduling.queue: with --target static")
    assert "statefulset integration" in warning and "its code default enables batch/job alone" in warning
    assert "the targets jobset, trainjob and mpijob make the job one workload" in warning
    assert "targets rule" in warning
    for target in ("jobset", "trainjob", "mpijob"):  # one workload: nothing to warn of
        done = cli("render", "bp", "--stdout", "--target", target)
        assert done.returncode == 0 and done.lines("warning") == [], (target, done.stderr)
    write("bp/vit.yaml", in_state("completed"))  # nothing rendered: nothing to warn of but the stop
    done = cli("render", "bp", "--stdout", "--target", "static", "--gitops", "argocd")
    assert done.returncode == 0 and done.lines("warning") == [] and done.objects() == []


def test_the_gate_mpigen_writes_is_one_kueue_takes_on_create():
    assert gate_format_errors(HELD_GATE) == []
    assert gate_format_errors("held") == ["held: must be a domain-prefixed path"]
