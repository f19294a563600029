"""The production checks of resources, placement and storage: accelerators, slots, mpirun
arguments, shared memory, hugepages, host network, the launcher on GPU nodes, storage;
each triggered at the offending key or value and quiet on a near-identical blueprint.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.cases import assert_prints_as_written, assert_quiet_twins_differ_in_one_place, table
from tests.support.production import VALIDATE, blueprint_yaml, diagnostics, marked


# The table of checks: tests/cases/resource_checks/, one case file per check that triggers (<case>.yaml)
# and one per near-identical blueprint that stays quiet (<case>.quiet.yaml), run in this process
# (tests/support/cases.py; `python -m tests.support.cases --update resource_checks` rewrites their output).
CASES = table("resource_checks")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_case_prints_what_its_file_says(case, tmp_path):
    """A check reports one diagnostic, of its severity, at the key or value to change, and exits
    2 with nothing on stdout for an error; its quiet twin prints no diagnostic and exits 0."""
    assert_prints_as_written(case, tmp_path)


def test_each_quiet_twin_is_its_check_with_one_change():
    assert_quiet_twins_differ_in_one_place(CASES)


def test_shared_memory_is_checked_against_a_rank_launcher_memory_limit(cli_job):
    """A launcher that runs ranks gets the workers' /dev/shm: 8Gi of it in a 4Gi launcher
    leaves its ranks nothing (user-needs 9: sharedMemory + app memory <= memory limit)."""
    text, line, column = marked(blueprint_yaml("""
        gpusPerWorker: 2
        sharedMemory: »8Gi
        launcher:
          runAsWorker: true
        resources:
          worker: {memory: 64Gi}
          launcher: {memory: 4Gi}
        """))
    done = cli_job(text, *VALIDATE)
    assert [(f[0], f[1], f[2]) for f in diagnostics(done)] == [(line, column, "error")], done.stderr


def _pod_specs(obj):
    """Every pod spec in a rendered object, however deep its kind holds it (a Job's template, an
    MPIJob's replica specs, a JobSet's replicated Jobs, a TrainingRuntime's JobSet template)."""
    if isinstance(obj, dict):
        if isinstance(obj.get("containers"), list):
            yield obj
        for value in obj.values():
            yield from _pod_specs(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _pod_specs(value)


@pytest.mark.parametrize("target", ["static", "mpijob", "jobset", "trainjob"])
def test_the_launcher_warning_says_what_the_rendered_pods_are(cli_job, target):
    """The warning's claim, read from the objects each target renders rather than from the
    blueprint: with it, the rendered pod specs hold a container with a memory limit and one
    without (a namespace whose ResourceQuota covers memory refuses the second: "If the quota has
    a value specified for requests.cpu or requests.memory, then it requires that every incoming
    container makes an explicit request for those resources", kubernetes.io/docs/concepts/policy/
    resource-quotas/; requests default to limits); with the launcher's memory given as it asks,
    every container of every rendered pod states its memory, and nothing is said."""
    bad = blueprint_yaml("resources:\n  worker: {cpu: 4, memory: 8Gi}\n")
    good = bad.replace("memory: 8Gi}", "memory: 8Gi}\n    launcher: {cpu: 1, memory: 2Gi}")
    for text, warned in ((bad, True), (good, False)):
        done = cli_job(text, "render", "--stdout", "--target", target)
        assert done.returncode == 0, done.stderr
        assert [d[3].startswith("spec.resources.launcher: ") for d in diagnostics(done)] == ([True] if warned else [])
        containers = [c for o in yaml.safe_load_all(done.stdout) for pod in _pod_specs(o) for c in pod["containers"]]
        stating = {"memory" in c.get("resources", {}).get("limits", {}) for c in containers}
        assert stating == ({True, False} if warned else {True}), containers


def test_the_cli_boundary_in_a_subprocess(tmp_path):
    """The same contract through `python -m mpigen`: an error exits 2 with nothing on stdout,
    a warning exits 0 and still renders."""
    error_text, line, column = marked(blueprint_yaml("network:\n  rdma:\n    resource: »amd.com/gpu\n"))
    (tmp_path / "job.yaml").write_text(error_text)
    done = run_mpigen("render", "--stdout", "job.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: spec.network.rdma.resource: ")
    warning_text, line, column = marked(blueprint_yaml("network:\n  hostNetwork: »true\n"))
    (tmp_path / "job.yaml").write_text(warning_text)
    done = run_mpigen("render", "--stdout", "--target", "mpijob", "job.yaml", cwd=tmp_path)
    assert done.returncode == 0 and b"kind: MPIJob" in done.stdout
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: warning: spec.network.hostNetwork: ")
