"""Proof that the `mpijob` target's output starts: each of the MPI Operator's v2beta1 examples
(tests/support/fixtures/mpi-operator-v2beta1/, the same at kubeflow/mpi-operator@caa3c47) imported
by `mpigen import`, rendered by `mpigen render --target mpijob` (kubeflow.org/v2beta1), and the
MPIJob run through a port of the operator's controller (tests/support/e2e/mpijob_cluster.py,
mpi_operator.py): the Secret `<job>-ssh` with its ECDSA key mounted at sshAuthMountPath, the
ConfigMap's hostfile at /etc/mpi, the workers' rendered sshd (the real OpenSSH server; the
non-root pi examples as uid 1000 with the line mpigen writes, spec.ssh.sshdConfig) Ready, then
the launcher's rendered mpirun (Open MPI 5 or MPICH from PyPI), unchanged, reaching every worker
over real ssh and exiting 0.

Modelled rather than real (each said where it is modelled): the images (operator_images.py:
the machine's root with the Dockerfiles' ssh settings, mpiuser's home, pi.cc compiled with the
image's mpic++, the Horovod programs as allreduce.py, Intel MPI's mpirun as MPICH's Hydra with
Intel's variables), cluster DNS and readiness (as in test_e2e_jobset.py), the controller (the
port), the Job's restarts (after a back-off scaled down tenfold). Needs what test_e2e_jobset.py
needs: skipped with the reason elsewhere, but never under CI.
"""

from __future__ import annotations

import base64
import re
import subprocess

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.e2e.harness import (MPICH, assert_left_nothing, image_env, imported_example, missing, missing_for_ssh,
                                       require)
from tests.support.e2e.image import launch_helpers
from tests.support.e2e.mpi_operator import expand

EXAMPLES = {"pi.yaml": "OpenMPI", "pi-mpich.yaml": "MPICH", "pi-intel.yaml": "Intel",
            "tensorflow-benchmarks.yaml": "OpenMPI", "tensorflow-mnist.yaml": "OpenMPI"}
MPI_OF = {"OpenMPI": "OpenMPI", "MPICH": "MPICH", "Intel": "MPICH"}  # whose MPI the image's model runs
RANK = re.compile(r"^Rank (\d+) on host (\S+)$", re.M)


@pytest.fixture(scope="module")
def machine():
    require(missing() or missing_for_ssh(), "end-to-end MPIJob test")


@pytest.fixture
def mpijob_for(tmp_path, machine):
    from tests.support.e2e.mpijob_cluster import MPIJobCluster

    made = []

    def build(mpijob: dict, program: str = "", **start):
        mpi = MPI_OF[mpijob["spec"].get("mpiImplementation", "OpenMPI")]
        cluster = MPIJobCluster(tmp_path / "cluster", [mpijob], image_env=image_env(mpi),
                                helpers=launch_helpers(MPICH), program=program)
        (tmp_path / "cluster").mkdir()
        made.append(cluster)
        cluster.start(**start)
        return cluster

    build.made = made
    yield build
    for cluster in made:
        assert_left_nothing(cluster)


def imported(tmp_path, example: str, **blueprint_changes) -> dict:
    """The example imported (harness.imported_example), then rendered with
    `--target mpijob --mpijob-api kubeflow.org/v2beta1`: the MPIJob."""
    imported_example(tmp_path, example, **blueprint_changes)
    done = run_mpigen("render", "blueprint.yaml", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v2beta1",
                      "--stdout", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    (mpijob,) = [o for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "MPIJob"]
    return mpijob


def horovod_program(mpijob: dict) -> str:
    """allreduce.py's arguments for the Horovod examples: every rank on its worker's slots."""
    spec, name = mpijob["spec"], mpijob["metadata"]["name"]
    workers, slots = spec["mpiReplicaSpecs"]["Worker"]["replicas"], spec["slotsPerWorker"]
    return f"{workers * slots} " + ",".join(f"{name}-worker-{i}:{slots}" for i in range(workers))


def launched(cluster) -> str:
    attempts = cluster.run_launcher_job()
    last = attempts[-1]
    print(f"[e2e] the launcher ran {len(attempts)} time(s)")
    assert last.returncode == 0, f"mpirun exited {last.returncode} after {len(attempts)} attempts\n" \
                                 f"{last.stdout}\n{last.stderr}"
    return last.stdout


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_each_example_imports_renders_and_its_objects_start(tmp_path, mpijob_for, example):
    mpijob = imported(tmp_path, example)
    assert mpijob["spec"]["mpiImplementation"] == EXAMPLES[example]
    pi = example.startswith("pi")
    cluster = mpijob_for(mpijob, "" if pi else horovod_program(mpijob), ready_timeout=30)
    out = launched(cluster)
    workers = sorted(p.hostname for p in cluster.workers())
    if pi:  # pi.cc: a line per rank with MPI_Get_processor_name, then rank 0's estimate
        assert sorted(host for _, host in RANK.findall(out)) == workers, out
        assert re.search(r"^pi is approximately 3\.1[0-9]+$", out, re.M), out
    else:  # allreduce.py checked every worker's slots and the sum
        assert "\"size\": 2" in out, out
    user, uid = ("mpiuser", "1000") if pi else ("root", "0")
    for pod in cluster.workers():  # the ranks' daemons came through each worker's sshd, with the Secret's key
        assert f"Accepted publickey for {user}" in cluster.logs(pod), cluster.logs(pod)
        assert cluster.sshd_status(pod)["Uid"].split()[:2] == [uid, uid]  # real and effective


def worker_container(mpijob: dict) -> dict:
    return mpijob["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]


def test_the_operators_own_worker_line_as_uid_1000_never_gets_ready(tmp_path, mpijob_for):
    """pi-mpich.yaml's workers without mpigen's command: newWorker runs `/usr/sbin/sshd -De`, which
    as uid 1000 cannot read the image's host keys and stops; the readinessProbe (port 2222) never
    succeeds and, with WaitForWorkersReady (the blueprint's default for MPICH), the operator never
    creates the launcher."""
    from tests.support.e2e.mpijob_cluster import NotReady

    mpijob = imported(tmp_path, "pi-mpich.yaml", launcher={"waitForWorkers": True})
    assert mpijob["spec"]["launcherCreationPolicy"] == "WaitForWorkersReady"
    assert worker_container(mpijob)["readinessProbe"] == {"tcpSocket": {"port": 2222}, "initialDelaySeconds": 2}
    for key in ("command", "args"):
        worker_container(mpijob).pop(key)
    with pytest.raises(NotReady):
        mpijob_for(mpijob, ready_timeout=5)
    (cluster,) = mpijob_for.made
    assert [p.name for p in cluster.pods.values()] == [p.name for p in cluster.workers()]  # no launcher pod
    assert all("no hostkeys available" in cluster.logs(pod) for pod in cluster.workers())


@pytest.mark.parametrize("policy", ["WaitForWorkersReady", "AtStartup"])
def test_the_launcher_waits_for_ready_workers_only_when_asked(tmp_path, mpijob_for, policy):
    """A worker whose sshd starts 3 s late: with WaitForWorkersReady the launcher is created once
    it is Ready and mpirun reaches it at the first attempt. With AtStartup the launcher starts at
    once and its first attempt fails (connection refused): the operator's HYDRA_LAUNCH_EXTRA_ARGS
    (`-o ConnectionAttempts=10`, mpichEnvVars) is not a variable MPICH's Hydra reads (it reads
    HYDRA_LAUNCHER_EXTRA_ARGS), so ssh does not retry; the Job's restart then succeeds."""
    mpijob = imported(tmp_path, "pi-mpich.yaml", launcher={"waitForWorkers": policy != "AtStartup"})
    assert mpijob["spec"]["launcherCreationPolicy"] == policy
    name = mpijob["metadata"]["name"]
    cluster = mpijob_for(mpijob, delays={f"{name}-worker-1": 3}, ready_timeout=30)
    attempts = cluster.run_launcher_job()
    assert attempts[-1].returncode == 0, attempts[-1].stdout + attempts[-1].stderr
    if policy == "WaitForWorkersReady":
        assert len(attempts) == 1
    else:
        assert len(attempts) > 1 and "Connection refused" in attempts[0].stderr, attempts[0].stderr


def test_a_hostfile_naming_hosts_that_do_not_resolve_fails_the_run(tmp_path, mpijob_for):
    """The same run with the hostfile's names in another namespace: mpirun cannot reach them."""
    mpijob = imported(tmp_path, "pi.yaml")
    name = mpijob["metadata"]["name"]
    wrong = "".join(f"{name}-worker-{i}.{name}.elsewhere.svc slots=1\n" for i in range(2))
    cluster = mpijob_for(mpijob, change={"hostfile": wrong})
    last = cluster.run_launcher_job(attempts=1)[-1]
    assert last.returncode != 0 and not RANK.search(last.stdout), last.stdout


def test_open_mpi_5_without_mpigens_prte_hostfile_runs_every_rank_on_the_launcher(tmp_path, mpijob_for):
    """Why mpigen adds PRTE_MCA_prte_default_hostfile: Open MPI 5 ignores the operator's
    OMPI_MCA_orte_default_hostfile, and without it pi's ranks never leave the launcher."""
    from tests.support.e2e.image import command_of

    mpijob = imported(tmp_path, "pi.yaml")
    cluster = mpijob_for(mpijob)
    done = cluster.run_launcher(command_of(cluster.launcher().container), drop_env=("PRTE_MCA_prte_default_hostfile",))
    hosts = {host for _, host in RANK.findall(done.stdout)}
    assert hosts <= {cluster.launcher().hostname}, done.stdout


@pytest.mark.parametrize("example", ["pi.yaml", "pi-mpich.yaml"])
def test_the_launcher_as_a_worker_runs_ranks_too(tmp_path, mpijob_for, example):
    """runLauncherAsWorker (the blueprint's launcher.runAsWorker): the hostfile's first line is the
    launcher (newConfigMap), so pi's ranks run there and on each worker."""
    mpijob = imported(tmp_path, example, launcher={"runAsWorker": True},
                      launcherCommand=["mpirun", "-n", "3", "/home/mpiuser/pi"])
    assert mpijob["spec"]["runLauncherAsWorker"] is True
    cluster = mpijob_for(mpijob, ready_timeout=30)
    out = launched(cluster)
    hosts = sorted(host for _, host in RANK.findall(out))
    assert hosts == sorted([cluster.launcher().hostname, *(p.hostname for p in cluster.workers())]), out


def test_the_secret_is_an_ecdsa_p521_key_and_its_authorized_keys_line(tmp_path):
    """newSSHAuthSecret: ssh-keygen reads the private key back as ECDSA 521 bits, whose public
    half is the ssh-publickey line."""
    require(missing_for_ssh(), "the operator's key read by ssh-keygen")
    job = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "k", "namespace": "default"},
           "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [{}]}}}}}}
    secret = expand(job).secret
    assert (secret["type"], secret["metadata"]["name"]) == ("kubernetes.io/ssh-auth", "k-ssh")
    private = base64.b64decode(secret["data"]["ssh-privatekey"])
    assert private.startswith(b"-----BEGIN EC PRIVATE KEY-----\n")
    (tmp_path / "key").write_bytes(private)
    (tmp_path / "key").chmod(0o600)
    public = subprocess.run(["ssh-keygen", "-y", "-f", str(tmp_path / "key")], capture_output=True, text=True,
                            check=True).stdout
    line = base64.b64decode(secret["data"]["ssh-publickey"]).decode()
    assert line.startswith("ecdsa-sha2-nistp521 ") and line.endswith("\n")
    assert line.split()[:2] == public.split()[:2]
