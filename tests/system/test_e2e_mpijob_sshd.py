"""Proof that the mpijob target's non-root workers start their sshd, with the real OpenSSH
server, as the MPI Operator's v2beta1 controller would run them
(kubeflow/mpi-operator@caa3c47 pkg/controller/mpi_job_controller.go): the Secret's files as
setupSSHOnPod mounts them at sshAuthMountPath (id_rsa, id_rsa.pub and authorized_keys, the
Secret volume's default mode 0644, root's, outside /root/.ssh), the rendered worker command
run as uid 1000, and an ssh login with the Secret's key, as the launcher's mpirun makes. The
image's own configuration (spec.ssh.sshdConfig) is the operator images' .sshd_config
(tests/support/fixtures/mpi-operator-base/sshd_config) in a home folder of the test's.
The operator's own line for a worker without a command, `/usr/sbin/sshd -De`, is run too: as
uid 1000 it stops, which is why the worker needs one.

Modelled: the pod (a process under setpriv, on the machine's network), the image (the machine's
root, with the home folder moved under the test's folder). Needs root, OpenSSH and a user with
uid 1000: skipped with the reason elsewhere.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.e2e.harness import NON_ROOT, missing_for_ssh, require
from tests.support.paths import ROOT

IMAGE_CONFIG = ROOT / "tests" / "support" / "fixtures" / "mpi-operator-base" / "sshd_config"
AS_USER = ["setpriv", f"--reuid={NON_ROOT}", f"--regid={NON_ROOT}", "--clear-groups"]


@pytest.fixture(scope="module")
def machine():
    require(("running as root is needed to start processes as uid 1000" if os.geteuid() != 0 else None)
            or missing_for_ssh(), "end-to-end mpijob sshd test")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def secret_volume(home, key_pair) -> str:
    """The operator's Secret as setupSSHOnPod mounts it at <home>/.ssh (sshVolumeItems)."""
    mount = home / ".ssh"
    mount.mkdir(parents=True)
    private, public = key_pair
    for name, data in (("id_rsa", private), ("id_rsa.pub", public), ("authorized_keys", public)):
        (mount / name).write_bytes(data)
        (mount / name).chmod(0o644)
    for folder in (home.parent, home, mount):
        folder.chmod(0o755)
    return str(mount)


@pytest.fixture
def pod_root():
    """A folder uid 1000 can reach (pytest's tmp_path is in folders only root may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="mpigen-sshd-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def key_pair(tmp_path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521", "-N", "", "-f", str(tmp_path / "k")], check=True)
    return (tmp_path / "k").read_bytes(), (tmp_path / "k.pub").read_bytes()


def worker_line(tmp_path, security: dict, ssh: dict) -> list[str]:
    blueprint = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint", "metadata": {"name": "pi"},
                 "spec": {"image": "mpioperator/mpi-pi:openmpi", "workers": 1, "command": ["/home/mpiuser/pi"],
                          "security": security, "ssh": ssh}}
    (tmp_path / "pi.yaml").write_text(yaml.safe_dump(blueprint))
    done = run_mpigen("render", "pi.yaml", "--stdout", "--target", "mpijob", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (mpijob,) = [d for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "MPIJob"]
    container = mpijob["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]
    return container.get("command", []) + container.get("args", [])


def logs_in(argv: list[str], port: int, key: bytes, tmp_path) -> tuple[bool, str]:
    """Start the worker's sshd as uid 1000 and log in with the Secret's key, as the launcher."""
    identity = Path(argv[argv.index("-h") + 1] if "-h" in argv else argv[-1]).parent / "launcher_key"
    identity.write_bytes(key)
    identity.chmod(0o600)
    os.chown(identity, NON_ROOT, NON_ROOT)
    sshd = subprocess.Popen(AS_USER + argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        user = pwd.getpwuid(NON_ROOT).pw_name
        for _ in range(50):
            if sshd.poll() is not None:
                break
            done = subprocess.run(AS_USER + ["ssh", "-F", "/dev/null", "-p", str(port), "-i", str(identity),
                                             "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                                             "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                                             f"{user}@127.0.0.1", "echo", "reached"],
                                  capture_output=True, text=True, env={"PATH": os.environ["PATH"], "HOME": "/"})
            if done.stdout.strip() == "reached":
                return True, ""
            time.sleep(0.1)
        return False, ""
    finally:
        if sshd.poll() is None:
            sshd.terminate()
        log = sshd.communicate(timeout=10)[0].decode()
        if sshd.returncode not in (0, -15, 255):
            print(log)


def test_mpigens_line_for_a_non_root_worker_starts_sshd_and_takes_the_secrets_key(tmp_path, machine, key_pair,
                                                                                 pod_root):
    port = free_port()
    mount = secret_volume(pod_root / "home" / "mpiuser", key_pair)
    argv = worker_line(tmp_path, {"runAsUser": NON_ROOT, "sshAuthMountPath": mount}, {"port": port})
    assert logs_in(argv, port, key_pair[0], tmp_path)[0], argv


def test_the_images_configuration_starts_sshd_and_takes_the_secrets_key(tmp_path, machine, key_pair, pod_root):
    """The operator images' .sshd_config, its /home/mpiuser moved under the test's folder."""
    port, home = free_port(), pod_root / "home" / "mpiuser"
    mount = secret_volume(home, key_pair)
    config = home / ".sshd_config"
    # sshd's default AuthorizedKeysFile, .ssh/authorized_keys, is in the user's home of /etc/passwd: the
    # image's /home/mpiuser, here the test's folder
    config.write_text(IMAGE_CONFIG.read_text().replace("/home/mpiuser", str(home)) + f"Port {port}\n"
                      f"AuthorizedKeysFile {home}/.ssh/authorized_keys\n")
    os.chown(home, NON_ROOT, NON_ROOT)  # the pid file's folder: the user's home
    argv = worker_line(tmp_path, {"runAsUser": NON_ROOT, "sshAuthMountPath": mount}, {"sshdConfig": str(config)})
    assert argv == ["/usr/sbin/sshd", "-De", "-f", str(config)]
    assert logs_in(argv, port, key_pair[0], tmp_path)[0], argv


def test_the_operators_own_line_does_not_start_as_uid_1000(tmp_path, machine):
    """What the workers ran before: `/usr/sbin/sshd -De` (newWorker) cannot read the host keys."""
    done = subprocess.run(AS_USER + ["/usr/sbin/sshd", "-De", "-p", str(free_port())], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode != 0 and "no hostkeys available" in done.stderr
