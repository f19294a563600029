"""What --target trainjob refuses, each at the blueprint's line with the reason, including
what the Trainer itself lets through (targets.md 2.6: nothing checks that a TrainJob's name
leaves room for the pod names of the JobSet it becomes; the JobSet is refused later)."""

from __future__ import annotations

import pytest

from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_yaml
from tests.support.command_line import run_mpigen
from tests.support.text import pos, write

def render(tmp_path, extra: str = "", name: str = "job", workers: int = 2, *flags: str):
    text = blueprint_yaml(name, spec=MINIMAL_SPEC_YAML.replace("workers: 2", f"workers: {workers}")) + extra
    path = tmp_path / "job.yaml"
    write(path, text)
    out = tmp_path / f"out-{len(name)}-{workers}"
    done = run_mpigen("render", str(path), "--target", "trainjob", "-o", str(out), *flags, text=True)
    return text, path, done, out


def only_error(done, path, text, needle, sub=None) -> str:
    assert done.returncode == 2, done.stderr
    line, column = pos(text, needle, sub)
    [message] = [l for l in done.stderr.splitlines() if ": error: " in l]
    assert message.startswith(f"{path}:{line}:{column}: error: "), message
    return message


def test_a_name_too_long_for_the_trainers_jobset(tmp_path):
    """The JobSet webhook refuses a pod name (plus 5 characters) over 63: <name>-node-0-<i>."""
    name = "n" * 44  # 44 + len("-launcher-0-0") + 6 = 63: fits
    text, path, done, out = render(tmp_path, name=name, workers=10)
    assert done.returncode == 0, done.stderr
    name = "n" * 42  # 42 + len("-node-0-1000") + 6 = 60 with 1001 workers: fits
    text, path, done, out = render(tmp_path, name=name, workers=1001)
    assert done.returncode == 0, done.stderr
    name = "n" * 45
    text, path, done, out = render(tmp_path, name=name)
    message = only_error(done, path, text, name)
    assert "shorten the name to at most 44 characters" in message and not out.exists()


def test_the_run_identity_counts_under_a_gitops_profile(tmp_path):
    name = "n" * 40  # 40 + 7 ("-<run>") + 13 ("-launcher-0-0") + 6 = 66
    text, path, done, out = render(tmp_path, "", name, 2, "--gitops", "argocd")
    message = only_error(done, path, text, name)
    assert "--gitops argocd" in message and "at most 37 characters" in message


@pytest.mark.parametrize("extra, needle, sub, words", [
    ("  env: {OMPI_MCA_orte_set_default_slots: '4'}\n", "OMPI_MCA_orte_set_default_slots", None,
     "spec.env: OMPI_MCA_orte_set_default_slots is set by"),
    ("  ssh: {keySecret: team-ssh}\n", "team-ssh", None, "the Trainer makes each run's key"),
    ("  security: {runAsUser: 1000}\n", "1000", None, "set spec.security.fsGroup"),
    ("  scheduling:\n    gang: {scheduler: kube-batch}\n", "kube-batch", None, "not kube-batch"),
    ("  network: {hostNetwork: true}\n  ssh: {port: 22}\n", "22", None, "the node's own sshd under hostNetwork"),
    ("  network: {hostNetwork: true}\n  launcher: {runAsWorker: true}\n", "runAsWorker: true", "true",
     "mpirun cannot tell that the hostfile's launcher is itself"),
    ("  runtime: {name: mpi-openmpi}\n  network: {hostNetwork: true}\n", "hostNetwork", None,
     "the worker pod's dnsPolicy and the worker pod's hostNetwork cannot be set on a runtime the cluster has"),
    ("  runtime: {name: mpi-openmpi}\n  resources:\n    launcher: {cpu: '1'}\n", "launcher", None,
     "spec.resources.launcher: on a runtime the cluster has"),
    ("  runtime: {name: mpi-openmpi}\n  scheduling:\n    gang: {scheduler: volcano}\n", "gang", None,
     "the runtime's podGroupPolicy decides"),
    ("  runtime: {name: x, emit: TrainingRuntime, kind: TrainingRuntime}\n", "name: x", "name",
     "give one of them"),
])
def test_what_the_trainer_cannot_express_is_refused_at_its_line(tmp_path, extra, needle, sub, words):
    text, path, done, out = render(tmp_path, extra)
    message = only_error(done, path, text, needle, sub) if "emit" not in extra else done.stderr
    assert words in message and not out.exists()
    assert "Traceback" not in done.stderr


def test_main_container_is_named_node_with_a_warning(tmp_path):
    """One blueprint renders under every target: mainContainer names the static target's
    containers, and the Trainer acts only on the container named node (Trainer v2.3.0
    pkg/constants/constants.go Node; pkg/runtime/framework/plugins/mpi/mpi.go mounts the key
    and hostfile there), so the trainjob target names it node and says so."""
    for runtime in ("", "  runtime: {name: mpi-openmpi}\n"):
        text, path, done, out = render(tmp_path, runtime + "  mainContainer: trainer\n")
        assert done.returncode == 0, done.stderr
        line, column = pos(text, "trainer\n", "trainer")
        assert f"{path}:{line}:{column}: warning: spec.mainContainer: with --target trainjob the main container " \
               "is named node, not trainer" in done.stderr
        rendered = "".join(p.read_text() for p in sorted(out.rglob("*.yaml")))
        assert "name: trainer" not in rendered and "name: node" in rendered
