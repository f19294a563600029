"""The trainjob target under GitOps (shared/reference/gitops.md G and H; targets.md 2.1, 2.6):
a TrainJob's trainer and runtimeRef are immutable, so each run is a TrainJob (and a runtime)
of its own; the runtime exists before its TrainJob (the Trainer's webhook refuses a TrainJob
whose runtime it cannot find): Argo CD's wave -1, Flux's Kustomization the TrainJobs' depends
on; Kueue and the Trainer's webhook write runtimePatches entries, so Argo CD applies and
diffs TrainJobs server-side."""

from __future__ import annotations

import yaml

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import render_text
from tests.support.text import write

BASE = (BLUEPRINTS / "tensorflow-mnist.yaml").read_text()


def trainjob(tmp_path, text: str, gitops: str = "argocd") -> list[dict]:
    path = tmp_path / "job.yaml"
    write(path, text)
    done = run_mpigen("render", str(path), "--target", "trainjob", "--gitops", gitops, "--stdout")
    assert done.returncode == 0, done.stderr
    return [o for o in yaml.safe_load_all(done.stdout) if o]


def test_a_new_spec_is_a_new_run_and_state_changes_it_in_place(tmp_path):
    first = trainjob(tmp_path, BASE)
    names = {o["kind"]: o["metadata"]["name"] for o in first}
    run = names["TrainJob"]
    assert run.startswith("tensorflow-mnist-") and names["TrainingRuntime"] == run
    [job] = [o for o in first if o["kind"] == "TrainJob"]
    assert job["spec"]["runtimeRef"]["name"] == run
    changed = {o["kind"]: o["metadata"]["name"] for o in trainjob(tmp_path, BASE.replace("workers: 2", "workers: 3"))}
    assert changed["TrainJob"] != run
    completed = trainjob(tmp_path, BASE.replace("spec:\n", "spec:\n  state: completed\n", 1))
    [done] = [o for o in completed if o["kind"] == "TrainJob"]
    assert done["metadata"]["name"] == run and done["spec"].pop("suspend") is True
    assert job["spec"].pop("suspend") is False  # the CRD's default, written out
    assert done == job
    assert trainjob(tmp_path, BASE.replace("spec:\n", "spec:\n  state: archived\n", 1)) == []


def test_argocd_applies_the_runtime_first_and_trainjobs_server_side():
    objects = render_text(blueprint_text(framework="pytorch"), target="trainjob", gitops="argocd")
    waves = {o["kind"]: o["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for o in objects}
    assert waves == {"ConfigMap": "-1", "TrainingRuntime": "-1", "TrainJob": "0"}
    [job] = [o for o in objects if o["kind"] == "TrainJob"]
    assert job["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "ServerSideApply=true"
    assert job["metadata"]["annotations"]["argocd.argoproj.io/compare-options"] == "ServerSideDiff=true"


def test_the_ttl_goes_on_the_runtimes_jobset_without_a_profile(tmp_path):
    objects = trainjob(tmp_path, blueprint_text(runPolicy={"ttlSecondsAfterFinished": 600}), gitops="none")
    [runtime] = [o for o in objects if o["kind"] == "TrainingRuntime"]
    assert runtime["spec"]["template"]["spec"]["ttlSecondsAfterFinished"] == 600


def test_flux_applies_the_runtimes_then_the_trainjobs(tmp_path):
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\ntarget: trainjob\ngitops: flux\n"
          "output: rendered\nflux: {}\n")
    write(tmp_path / "blueprints" / "a.yaml", blueprint_text("a"))
    write(tmp_path / "blueprints" / "b.yaml", blueprint_text("b", runtime={"name": "platform-mpi"}))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "rendered"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml")) == [
        "kustomization.yaml", "runtimes/default/trainingruntime-a-" + _run(out, "a") + ".yaml",
        "runtimes/kustomization.yaml", "trainjobs/default/trainjob-a-" + _run(out, "a") + ".yaml",
        "trainjobs/default/trainjob-b-" + _run(out, "b") + ".yaml", "trainjobs/kustomization.yaml"]
    kustomizations = list(yaml.safe_load_all((tmp_path / "flux" / "kustomizations.yaml").read_text()))
    by_name = {k["metadata"]["name"]: k["spec"] for k in kustomizations}
    assert by_name["mpigen-runtimes"]["path"] == "./rendered/runtimes" and by_name["mpigen-runtimes"]["wait"] is True
    assert by_name["mpigen-trainjobs"]["path"] == "./rendered/trainjobs"
    assert by_name["mpigen-trainjobs"]["dependsOn"] == [{"name": "mpigen-runtimes"}]
    assert by_name["mpigen-trainjobs"]["wait"] is False


def _run(out, job: str) -> str:
    [path] = list((out / "trainjobs").rglob(f"trainjob-{job}-*.yaml"))
    return path.stem.rsplit("-", 1)[1]
