"""Proof that the `trainjob` target's output runs: a blueprint rendered by the CLI
(`--target trainjob`), its TrainJob and runtime expanded as Kubeflow Trainer v2.3.0 expands them
(tests/support/e2e/trainer, a port checked against the Trainer's own tests: the JobSet, the
Secret `<trainjob>-mpi-ssh-auth` with its ECDSA key, the hostfile ConfigMap, the launcher's
OMPI_MCA_ variables), run in the pretend cluster of the JobSet test (jobset_cluster.py): real
sshd on the workers, started by the rendered command from the files the rendered ssh-setup init
container wrote from the Trainer's key (mounted as the kubelet mounts it: id_rsa 0640, the rest
0644 and defaultMode 0400, fsGroup applied), then the launcher's mpirun over real OpenSSH with
Open MPI 5 or MPICH. The launcher's rendered command runs unchanged except for the program
(allreduce.py, which fails unless every rank host runs exactly its slots). One run goes through
the port's Trainer v2.4 expansion (kubeflow/trainer#4029's PRRTE variables, #4301's image).

Needs what test_e2e_jobset.py needs: skipped with the reason elsewhere, but never under CI.
Modelled rather than real: as in test_e2e_jobset.py; and the Trainer's controller (the port).
"""

from __future__ import annotations

import pwd
import subprocess

import pytest

from tests.support.e2e.harness import (MPICH, NON_ROOT, assert_left_nothing, image_env, launch_command, missing,
                                       missing_for_ssh, render, require, result)
from tests.support.e2e.image import launch_helpers

AS_USER = {"runAsUser": NON_ROOT, "fsGroup": NON_ROOT}
SSHD_CAPS = {"KILL": 5, "SETGID": 6, "SETUID": 7, "SYS_CHROOT": 18, "AUDIT_WRITE": 29}  # linux/capability.h


@pytest.fixture(scope="module")
def machine():
    require(missing() or missing_for_ssh(), "end-to-end TrainJob test")


@pytest.fixture
def trainjob_for(tmp_path, machine):
    from tests.support.e2e.trainjob_cluster import TrainJobCluster

    made = []

    def build(objects: list[dict], mpi: str = "OpenMPI", **start):
        cluster = TrainJobCluster(tmp_path / "cluster", objects, image_env=image_env(mpi),
                                  helpers=launch_helpers(MPICH))
        (tmp_path / "cluster").mkdir()
        made.append(cluster)
        cluster.start(**start)
        return cluster

    yield build
    for cluster in made:
        assert_left_nothing(cluster)


def expanded(tmp_path, workers: int = 2, slots: int = 1, mpi: str = "OpenMPI", **extra):
    """(blueprint, TrainJob, the cluster's objects once the Trainer expanded the TrainJob)."""
    from tests.support.e2e.trainjob_cluster import expand_rendered

    blueprint, objects, _ = render(tmp_path, workers, slots, mpi, target="trainjob", **extra)
    trainjob, cluster_objects = expand_rendered(objects)
    return blueprint, trainjob, cluster_objects


def expected(blueprint: dict, cluster) -> list[str]:
    """The world size and each rank host with its slots: the node pods, and the launcher when
    it runs ranks."""
    slots = blueprint["spec"]["slotsPerWorker"]
    hosts = [pod.hostname for pod in cluster.workers()]
    if blueprint["spec"].get("launcher", {}).get("runAsWorker"):
        hosts.append(cluster.launcher().hostname)
    return [str(len(hosts) * slots), ",".join(f"{h}:{slots}" for h in hosts)]


def run(cluster, blueprint: dict, **launch):
    command = launch_command(blueprint, cluster.launcher().container, expected(blueprint, cluster))
    return cluster.run_launcher(command, timeout=launch.pop("timeout", 60), **launch)


@pytest.mark.parametrize("mpi,workers,slots,user", [
    ("OpenMPI", 2, 1, "root"), ("OpenMPI", 2, 2, "non-root"), ("MPICH", 2, 2, "root"),
    ("MPICH", 2, 1, "non-root")])
def test_the_trainers_jobset_runs_the_rendered_mpirun_over_ssh(tmp_path, trainjob_for, mpi, workers, slots, user):
    security = AS_USER if user == "non-root" else {}
    blueprint, trainjob, objects = expanded(tmp_path, workers, slots, mpi, security=security)
    cluster = trainjob_for(objects, mpi)
    seen = result(run(cluster, blueprint))

    assert seen["size"] == workers * slots
    assert sorted({r["host"] for r in seen["ranks"]}) == sorted(p.hostname for p in cluster.workers())
    uid = NON_ROOT if security else 0
    assert {r["Uid"] for r in seen["ranks"]} == {str(uid)}
    login = f"Accepted publickey for {pwd.getpwuid(uid).pw_name}"
    assert all(login in cluster.logs(pod) for pod in cluster.workers()), [cluster.logs(p) for p in cluster.workers()]
    mask = sum(1 << bit for bit in SSHD_CAPS.values()) if uid == 0 else 0
    assert [cluster.sshd_capabilities(pod) for pod in cluster.workers()] == [mask] * workers
    for pod in [*cluster.workers(), cluster.launcher()]:
        # The Trainer's key as the kubelet wrote it (item mode 0640; with fsGroup the group's),
        # and the copy ssh-setup made, the container user's own, 0600.
        trainer_key = (pod.volume_dir("mpi-ssh-auth") / "id_rsa").stat()
        assert (trainer_key.st_uid, trainer_key.st_gid, oct(trainer_key.st_mode & 0o777)) == \
            (0, NON_ROOT if security else 0, "0o640")
        key = (pod.volume_dir("mpigen-ssh") / "key").stat()
        assert (key.st_uid, oct(key.st_mode & 0o777)) == (uid, "0o600")


@pytest.mark.parametrize("mpi", ["OpenMPI", "MPICH"])
def test_the_launcher_as_a_node_runs_its_own_ranks(tmp_path, trainjob_for, mpi):
    """runAsWorker: the TrainJob's numNodes counts the launcher (runLauncherAsNode); the
    Trainer makes one node pod fewer and puts the launcher last in the hostfile."""
    blueprint, trainjob, objects = expanded(tmp_path, 2, 1, mpi, launcher={"runAsWorker": True})
    assert trainjob["spec"]["trainer"]["numNodes"] == 3
    cluster = trainjob_for(objects, mpi)
    assert len(cluster.workers()) == 2
    seen = result(run(cluster, blueprint))
    hosts = sorted([*(p.hostname for p in cluster.workers()), cluster.launcher().hostname])
    assert seen["size"] == 3 and sorted({r["host"] for r in seen["ranks"]}) == hosts
    # What mpirun read: the Trainer's hostfile as ssh-setup rewrote it (Hydra's host:slots; for
    # Open MPI the launcher's line under its host name, which Open MPI takes for itself).
    name, launcher = trainjob["metadata"]["name"], cluster.launcher().hostname
    trainers = (cluster.launcher().volume_dir("mpi-hostfile") / "hostfile").read_text()
    assert trainers == f"{name}-node-0-0.{name} slots=1\n{name}-node-0-1.{name} slots=1\n{launcher}.{name} slots=1\n"
    want = trainers.replace(" slots=", ":") if mpi == "MPICH" else trainers.replace(f"{launcher}.{name} ", f"{launcher} ")
    assert (cluster.launcher().volume_dir("mpigen-ssh") / "hostfile").read_text() == want



@pytest.mark.parametrize("mpi", ["OpenMPI", "MPICH"])
def test_a_run_scoped_trainjob_of_a_gitops_profile_runs(tmp_path, trainjob_for, mpi):
    """Under Argo CD each run is a TrainJob `<job>-<run id>` with a runtime of that name: the
    Trainer names the pods, key and hostfile after it, and the rendered launch line (Hydra's
    -localhost) and hostfile rewrite must use the same name."""
    blueprint, trainjob, objects = expanded(tmp_path, 2, 1, mpi, options=("--gitops", "argocd"),
                                            launcher={"runAsWorker": True})
    name = trainjob["metadata"]["name"]
    assert name.startswith(blueprint["metadata"]["name"] + "-") and trainjob["spec"]["runtimeRef"]["name"] == name
    cluster = trainjob_for(objects, mpi)
    assert cluster.launcher().hostname == f"{name}-launcher-0-0"
    seen = result(run(cluster, blueprint))
    assert seen["size"] == 3


def test_the_trainers_key_as_mounted_is_refused_by_ssh_and_the_copy_is_not(tmp_path, trainjob_for):
    """Why ssh-setup copies the key: ssh run as root refuses the Trainer's id_rsa (root's, mode
    0640: "UNPROTECTED PRIVATE KEY FILE") and so reaches no worker with it; the copy it made
    (0600) logs in."""
    blueprint, trainjob, objects = expanded(tmp_path)
    cluster = trainjob_for(objects)
    worker = cluster.workers()[0]
    options = ["-F", "/dev/null", "-p", "2222", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
               "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes"]
    host = f"{worker.hostname}.{worker.subdomain}"
    refused = cluster.run_launcher(["ssh", *options, "-i", "/etc/mpi-ssh-auth/id_rsa", host, "true"])
    assert refused.returncode == 255 and "UNPROTECTED PRIVATE KEY FILE" in refused.stderr, refused.stderr
    accepted = cluster.run_launcher(["ssh", *options, "-i", "/etc/mpigen-ssh/key", host, "true"])
    assert accepted.returncode == 0, accepted.stderr


@pytest.mark.parametrize("mpi,launcher", [("OpenMPI", {}), ("MPICH", {}),
                                          ("OpenMPI", {"runAsWorker": True})])
def test_pytorch_ranks_start_through_rank_env(tmp_path, trainjob_for, mpi, launcher):
    """PyTorch under mpirun: every rank runs /etc/mpigen/rank-env.sh (the ConfigMap
    `<job>-mpigen`, mounted on each pod that runs ranks), which exits unless MASTER_ADDR and
    MASTER_PORT came from the launcher; the run succeeds only if every rank got through it."""
    blueprint, trainjob, objects = expanded(tmp_path, 2, 1, mpi, framework="pytorch", launcher=launcher)
    assert "/etc/mpigen/rank-env.sh" in trainjob["spec"]["trainer"]["command"]
    cluster = trainjob_for(objects, mpi)
    seen = result(run(cluster, blueprint))
    assert seen["size"] == 3 if launcher else 2


def test_ssh_setup_writes_only_its_own_folder(tmp_path, trainjob_for):
    """ssh-setup's readOnlyRootFilesystem (as the runtime applies it: the image's file system
    read-only, the volumes as mounted): it writes its folder, and nothing else."""
    from tests.support.e2e.container import container_argv

    blueprint, trainjob, objects = expanded(tmp_path)
    cluster = trainjob_for(objects)
    pod = cluster.workers()[0]
    setup = pod.container_named("ssh-setup")
    assert setup["securityContext"]["readOnlyRootFilesystem"] is True
    for path, writable in (("/tmp/probe", False), ("/etc/probe", False), ("/etc/mpigen-ssh/probe", True)):
        done = subprocess.run(container_argv(pod, ["touch", path], cluster.image_env, container=setup),
                              capture_output=True, text=True)
        assert (done.returncode == 0) == writable, (path, done.stderr)
        assert writable or "Read-only file system" in done.stderr


def test_under_trainer_v2_4_open_mpi_5_runs_on_the_plugins_prrte_variables(tmp_path, trainjob_for):
    """Trainer v2.4 (versions.trainer in the environment's overlay): the port's plugin sets the
    PRRTE variables itself (kubeflow/trainer#4029), keep_fqdn_hostnames false, and mpigen's
    runtime sets none of them. With the launcher among the rank hosts (runLauncherAsNode) PRRTE
    takes the Trainer's line for the launcher as its own host, so no copy of the hostfile is
    made, and reaches the nodes with mpigen's ssh_config through the agent, followed by the
    plugin's ssh arguments."""
    from tests.support.e2e.trainjob_cluster import expand_rendered

    overlay = tmp_path / "overlays" / "trainer-v24"
    overlay.mkdir(parents=True)
    (overlay / "overlay.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
                                          "versions: {trainer: v2.4}\n")
    blueprint, objects, _ = render(tmp_path, 2, 1, "OpenMPI", target="trainjob", options=("--overlay", str(overlay)),
                                   launcher={"runAsWorker": True})
    trainjob, cluster_objects = expand_rendered(objects, "v2.4")
    cluster = trainjob_for(cluster_objects)
    env = {e["name"]: e.get("value") for e in cluster.launcher().container["env"]}
    assert (env["PRTE_MCA_prte_keep_fqdn_hostnames"], env["PRTE_MCA_plm_ssh_agent"]) == (
        "false", "ssh -F /etc/mpigen-ssh/ssh_config")
    seen = result(run(cluster, blueprint))
    hosts = sorted([*(p.hostname for p in cluster.workers()), cluster.launcher().hostname])
    assert seen["size"] == 3 and sorted({r["host"] for r in seen["ranks"]}) == hosts
    assert not (cluster.launcher().volume_dir("mpigen-ssh") / "hostfile").exists()


def test_under_trainer_v2_4_mpich_runs_through_the_expansion(tmp_path, trainjob_for):
    """MPICH (Hydra) reads none of the plugin's Open MPI variables, so under Trainer v2.4 it
    runs as under v2.3, with the TrainJob's image on the node containers too (#4301, as the
    port's v2.4 expansion models it)."""
    from tests.support.e2e.trainjob_cluster import expand_rendered

    overlay = tmp_path / "overlays" / "trainer-v24"
    overlay.mkdir(parents=True)
    (overlay / "overlay.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
                                          "versions: {trainer: v2.4}\n")
    blueprint, objects, _ = render(tmp_path, 2, 2, "MPICH", target="trainjob", options=("--overlay", str(overlay)))
    trainjob, cluster_objects = expand_rendered(objects, "v2.4")
    cluster = trainjob_for(cluster_objects, "MPICH")
    assert {pod.container["image"] for pod in cluster.workers()} == {trainjob["spec"]["trainer"]["image"]}
    seen = result(run(cluster, blueprint))
    assert seen["size"] == 4
    assert sorted({r["host"] for r in seen["ranks"]}) == sorted(p.hostname for p in cluster.workers())
