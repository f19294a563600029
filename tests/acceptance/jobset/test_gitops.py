"""The jobset target under GitOps (shared/reference/gitops.md G and H; targets.md 1.3, 1.6):
a JobSet's replicated jobs are immutable, so each run is a JobSet of its own; the blueprint's
state and TTL change the run in place (suspend and ttlSecondsAfterFinished are mutable);
Argo CD applies the configuration before the JobSet; and no warning about workers left
running, since JobSet deletes them when the launcher succeeds."""

from __future__ import annotations

import yaml

from tests.support.command_line import run_mpigen
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import render_text
from tests.support.text import write

BASE = (BLUEPRINTS / "tensorflow-mnist.yaml").read_text()


def jobset(tmp_path, text: str, gitops: str = "argocd") -> dict:
    """The JobSet `mpigen render` writes for the blueprint text (the CLI reads its state)."""
    path = tmp_path / "job.yaml"
    write(path, text)
    done = run_mpigen("render", str(path), "--target", "jobset", "--gitops", gitops, "--stdout")
    assert done.returncode == 0, done.stderr
    [found] = [o for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "JobSet"]
    return found


def test_a_new_spec_is_a_new_jobset_and_state_changes_it_in_place(tmp_path):
    first = jobset(tmp_path, BASE)
    assert first["metadata"]["name"].startswith("tensorflow-mnist-")
    assert jobset(tmp_path, BASE.replace("workers: 2", "workers: 3"))["metadata"]["name"] != first["metadata"]["name"]
    completed = jobset(tmp_path, BASE.replace("spec:\n", "spec:\n  state: completed\n", 1))
    assert completed["metadata"]["name"] == first["metadata"]["name"]
    assert completed["spec"].pop("suspend") is True
    assert completed == first


def test_the_ttl_goes_on_the_jobset_without_a_profile(tmp_path):
    text = BASE.replace("cleanPodPolicy: Running", "cleanPodPolicy: Running\n    ttlSecondsAfterFinished: 600")
    found = jobset(tmp_path, text, gitops="none")
    assert found["metadata"]["name"] == "tensorflow-mnist" and found["spec"]["ttlSecondsAfterFinished"] == 600


def test_argocd_applies_the_configuration_first():
    objects = render_text(BASE, target="jobset", gitops="argocd")
    waves = {o["kind"]: o["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"] for o in objects}
    assert waves == {"ConfigMap": "-1", "ServiceAccount": "-1", "Role": "-1", "RoleBinding": "-1", "JobSet": "0"}


def test_every_run_object_is_renamed_together(tmp_path):
    """The key's Secret, the generator's RBAC and the hostfile all name the run's JobSet."""
    objects = render_text(BASE, target="jobset", gitops="flux")
    name = jobset(tmp_path, BASE, gitops="flux")["metadata"]["name"]
    text = yaml.safe_dump(objects)
    assert {o["metadata"]["name"] for o in objects} == {f"{name}-config", f"{name}-ssh-keygen", name}
    assert f"{name}-worker-0-1.{name} slots=1" in text and f"- {name}-ssh\n" in text


def test_no_warning_about_workers_left_running(tmp_path):
    path = str(tmp_path / "job.yaml")
    write(path, BASE.replace("cleanPodPolicy: Running", "cleanPodPolicy: None"))
    done = run_mpigen("render", path, "--target", "jobset", "--gitops", "argocd", "--stdout")
    assert done.returncode == 0 and done.stderr == b""
    static = run_mpigen("render", path, "--gitops", "argocd", "--stdout")
    assert b"cleanPodPolicy is None" in static.stderr
