"""The checks of the jobset target and of Kueue's fields, each triggered at the offending key
or value and quiet on a near-identical blueprint (see this folder's __init__.py).

Expected limits are worked out by hand from shared/reference/targets.md: the JobSet webhook
checks that `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>` plus a 5-character suffix is a
DNS-1035 label (1.4); Kueue reads priority classes and topology requests of queued
workloads only (3.1); a non-root sshd reads a root-owned key only through its group, and
binds no port below 1024."""

from __future__ import annotations

import pytest

from tests.support.cases import assert_prints_as_written, assert_quiet_twins_differ_in_one_place, table
from tests.support.production import STATIC, diagnostics

JOBSET = ("render", "--stdout", "--target", "jobset")
JOBSET_ARGOCD = JOBSET + ("--gitops", "argocd")
# The head's job has 2 workers: the launcher's `-launcher-0-0` + 6 = 19 characters is the
# longest pod suffix, so the name may have 63 - 19 = 44 characters, and 44 - 7 = 37 with -<run>.
NAME_44, NAME_45 = "j" * 44, "j" * 45

# The table of checks: tests/cases/jobset_checks/, one case file per check that triggers (<case>.yaml)
# and one per near-identical blueprint that stays quiet (<case>.quiet.yaml), run in this process
# (tests/support/cases.py; `python -m tests.support.cases --update jobset_checks` rewrites their output).
CASES = table("jobset_checks")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_case_prints_what_its_file_says(case, tmp_path):
    """A check reports one diagnostic, of its severity, at the key or value to change, and exits
    2 with nothing on stdout for an error; its quiet twin prints no diagnostic and exits 0."""
    assert_prints_as_written(case, tmp_path)


def test_each_quiet_twin_is_its_check_with_one_change():
    assert_quiet_twins_differ_in_one_place(CASES)


@pytest.mark.parametrize("key, value", [("topology", "{preferred: example.com/rack}"), ("multiKueue", "true")])
def test_static_refuses_what_only_one_workload_carries(cli_job, key, value):
    """Only a JobSet and a v2beta1 MPIJob carry a topology request and MultiKueue's managedBy:
    static refuses them at the key; without them, its queue still warns (two workloads, no gang)."""
    queued = named("train") + "  scheduling:\n    queue: team-a\n"
    done = cli_job(queued + f"    {key}: {value}\n", *STATIC)
    found = diagnostics(done)
    assert [(f[0], f[1], f[2]) for f in found] == [(11, 5, "error")], done.stderr
    assert found[0][3].startswith(f"spec.scheduling.{key}: --target static cannot render it")
    assert done.returncode == 2 and done.stdout == b""
    done = cli_job(queued, *STATIC)
    found = diagnostics(done)
    assert [(f[0], f[2]) for f in found] == [(10, "warning")] and done.returncode == 0, done.stderr
    assert found[0][3].startswith("spec.scheduling.queue: with --target static")


def named(name: str) -> str:
    return f"""apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: {name}
spec:
  image: example.com/train:1
  workers: 2
  command: [python, train.py]
"""


@pytest.mark.parametrize("args, longest", [(JOBSET, 44), (JOBSET_ARGOCD, 37)])
def test_the_jobset_name_limit_is_the_webhooks(cli_job, args, longest):
    """The longest name the JobSet webhook accepts renders; one more character is refused at
    metadata.name, with the limit in the message."""
    assert cli_job(named("j" * longest), *args).returncode == 0
    done = cli_job(named("j" * (longest + 1)), *args)
    found = diagnostics(done)
    assert done.returncode == 2 and [(f[0], f[1], f[2]) for f in found] == [(4, 9, "error")], done.stderr
    assert f"at most {longest} characters" in found[0][3]
    assert found[0][3].startswith("metadata.name: with --target jobset")


def test_many_workers_lengthen_the_worker_pod_names(cli_job):
    """With 10000 workers the last worker pod is `<name>-worker-0-9999` + 6: 20 characters, one
    more than the launcher's, so the limit is 43."""
    text = named("j" * 44).replace("workers: 2", "workers: 10000")
    done = cli_job(text, *JOBSET)
    assert done.returncode == 2 and "at most 43 characters" in done.stderr


def test_a_root_job_with_fsgroup_is_refused(cli_job):
    """Kubernetes adds group read to every file of a Secret volume under fsGroup
    (kubernetes#57923); OpenSSH refuses a key its own user's group may read."""
    text = named("job") + "  security:\n    fsGroup: 1000\n"
    found = diagnostics(cli_job(text, *JOBSET))
    assert [(f[0], f[1], f[2]) for f in found] == [(10, 14, "error")]
    assert found[0][3].startswith("spec.security.fsGroup")
    assert diagnostics(cli_job(text.replace("fsGroup: 1000", "runAsUser: 1000\n    fsGroup: 1000"), *JOBSET)) == []


@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_hydra_with_its_own_launch_line_must_name_the_launcher_host(cli_job, target):
    """Hydra's proxies connect back to the launcher's bare host name (MPICH's pmip.c), which
    the pods of a JobSet cannot resolve: the job never starts ("unable to get host address",
    found by the property test through the pretend cluster). mpigen's mpirun line gives
    -localhost; a launcherCommand of the blueprint's without one is an error at its key."""
    text = named("job").replace("  command: [python, train.py]\n", "  mpiImplementation: MPICH\n"
                                "  launcherCommand: [mpiexec, -n, '2', hostname]\n")
    found = diagnostics(cli_job(text, "render", "--stdout", "--target", target))
    assert [(f[0], f[1], f[2]) for f in found] == [(9, 3, "error")]
    assert "-localhost job-launcher-0-0.job" in found[0][3]
    fixed = text.replace("[mpiexec, -n,", "[mpiexec, -localhost, job-launcher-0-0.job, -n,")
    assert diagnostics(cli_job(fixed, "render", "--stdout", "--target", target)) == []