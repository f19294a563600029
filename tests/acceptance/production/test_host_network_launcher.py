"""A launcher that is also a rank (spec.launcher.runAsWorker) cannot be on the host network on
the targets that run mpirun over a hostfile of pod names: its pod has the node's hostname, so
mpirun cannot tell the hostfile's launcher is itself. Each target refuses it at the line of
runAsWorker, with its own way out (render/checks.launcher_on_host_network)."""

from __future__ import annotations

from pathlib import Path

import pytest

BLUEPRINT = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata: {name: hn}
spec:
  image: registry.example.com/train:1
  workers: 2
  command: [python, train.py]
  network: {hostNetwork: true}
  launcher: {runAsWorker: true}
"""
CAUSE = ("bp.yaml:9:27: error: spec.launcher.runAsWorker with hostNetwork: a host-network pod has the node's "
         "hostname, so mpirun cannot tell that ")


@pytest.mark.parametrize("target, then", [
    ("static", "the hostfile's <name>-launcher is itself; use the mpijob target or keep the launcher off the "
               "host network"),
    ("jobset", "the hostfile's launcher is itself and would ssh to it; keep the launcher off the host network"),
    ("trainjob", "the hostfile's launcher is itself and would ssh to it; keep the launcher off the host network"),
])
def test_each_target_refuses_it_with_its_own_way_out(cli, target, then):
    Path("bp.yaml").write_text(BLUEPRINT)
    done = cli("validate", "bp.yaml", "--target", target)
    assert done.returncode == 2
    assert CAUSE + then in done.stderr.splitlines()
    assert cli("validate", "bp.yaml", "--target", target, "--no-cache").stderr == done.stderr
