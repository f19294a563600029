"""The MPI Operator's v2beta1 examples (tests/support/fixtures/mpi-operator-v2beta1/, the same
at kubeflow/mpi-operator@caa3c47) imported and rendered with --target mpijob: each worker's
sshd is one that starts as the worker's user, by the operator's rules, not mpigen's.

The operator (pkg/controller/mpi_job_controller.go at caa3c47): newWorker runs
`/usr/sbin/sshd -De` when the container has neither command nor args; setupSSHOnPod mounts the
Secret at spec.sshAuthMountPath (default /root/.ssh) as id_rsa, id_rsa.pub and authorized_keys
(sshVolumeItems). That sshd reads the image's root-only host keys: it starts only as root.
As any other user the line must give sshd a host key it can read: the operator's id_rsa, either
through the image's own configuration (build/base/sshd_config, the operator images'
/home/mpiuser/.sshd_config, tests/support/fixtures/mpi-operator-base/) or on the line itself.
"""

from __future__ import annotations

import shutil

import pytest
import yaml

from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "support" / "fixtures"
EXAMPLES = sorted(p.name for p in (FIXTURES / "mpi-operator-v2beta1").glob("*.yaml"))
IMAGE_SSHD_CONFIG = "/home/mpiuser/.sshd_config"  # build/base/Dockerfile: COPY sshd_config .sshd_config
IMAGE_PORT = 2222  # build/base/Dockerfile: ARG port=2222, appended to .sshd_config and set in /etc/ssh/ssh_config


def image_config() -> dict[str, str]:
    lines = (FIXTURES / "mpi-operator-base" / "sshd_config").read_text().splitlines()
    words = dict(line.split(None, 1) for line in lines if line and not line.startswith("#"))
    return {**words, "Port": str(IMAGE_PORT)}


def worker(mpijob: dict) -> tuple[list[str], dict]:
    pod = mpijob["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    container = pod["containers"][0]
    user = container.get("securityContext", {}).get("runAsUser", pod.get("securityContext", {}).get("runAsUser", 0))
    return (container.get("command") or []) + (container.get("args") or []), {"user": user}


def options(argv: list[str]) -> dict[str, str]:
    """sshd's settings from its line: -f, -h, -p, and each -o NAME=VALUE."""
    flags = {"-f": "config", "-h": "HostKey", "-p": "Port"}
    out, i = {}, 0
    while i < len(argv):
        if argv[i] in flags:
            out[flags[argv[i]]] = argv[i + 1]
            i += 2
        elif argv[i] == "-o":
            name, value = argv[i + 1].split("=", 1)
            out[name] = value
            i += 2
        else:
            i += 1
    return out


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_example_imports_and_its_workers_sshd_starts_as_their_user(cli, tmp_path, example):
    shutil.copy(FIXTURES / "mpi-operator-v2beta1" / example, tmp_path)
    original = yaml.safe_load((tmp_path / example).read_text())
    done = cli("import", example, "-o", "blueprints")
    assert done.returncode == 0, done.stderr
    rendered = cli("render", "blueprints", "--stdout", "--target", "mpijob")
    assert rendered.returncode == 0, rendered.stderr
    (mpijob,) = [d for d in rendered.objects() if d["kind"] == "MPIJob"]
    argv, who = worker(mpijob)
    mount = mpijob["spec"]["sshAuthMountPath"]
    assert mount == original["spec"].get("sshAuthMountPath", "/root/.ssh")
    if who["user"] == 0:
        assert argv in ([], ["/usr/sbin/sshd", "-De"])  # the operator's own line, which root runs
        return
    assert argv[:2] == ["/usr/sbin/sshd", "-De"] and mount != "/root/.ssh"  # 0600 root's there
    said = options(argv)
    settings = image_config() if said.get("config") == IMAGE_SSHD_CONFIG else said
    assert settings["HostKey"] == f"{mount}/id_rsa"  # the operator's Secret, readable by any user outside /root
    assert settings["Port"] == str(IMAGE_PORT)  # where the image's ssh client (/etc/ssh/ssh_config) connects
    assert settings.get("StrictModes") == "no"  # the Secret's files are root's, not the user's


@pytest.mark.parametrize("example", ["pi.yaml", "pi-intel.yaml", "pi-mpich.yaml"])
def test_the_non_root_pi_examples_keep_the_images_sshd_configuration(cli, tmp_path, example):
    shutil.copy(FIXTURES / "mpi-operator-v2beta1" / example, tmp_path)
    done = cli("import", example, "--stdout")
    assert done.returncode == 0, done.stderr
    spec = yaml.safe_load(done.stdout)["spec"]
    assert spec["ssh"] == {"sshdConfig": IMAGE_SSHD_CONFIG}
    assert spec["security"]["sshAuthMountPath"] == "/home/mpiuser/.ssh"


NON_ROOT = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: job
spec:
  image: example.com/train:1
  workers: 2
  command: [python, train.py]
  security:
    runAsUser: 1000
    sshAuthMountPath: /home/mpiuser/.ssh
"""


def test_a_non_root_blueprint_round_trips_through_the_mpijob_target(cli, tmp_path):
    """mpigen's own line for a non-root worker imports back to the blueprint, with no warning."""
    (tmp_path / "job.yaml").write_text(NON_ROOT)
    rendered = cli("render", "job.yaml", "--target", "mpijob", "-o", "out")
    assert rendered.returncode == 0, rendered.stderr
    (path,) = [p for p in (tmp_path / "out").rglob("*.yaml") if "MPIJob" in p.read_text()
               and p.name != "kustomization.yaml"]
    done = cli("import", str(path), "--stdout")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "ssh" not in yaml.safe_load(done.stdout)["spec"]
    (tmp_path / "again.yaml").write_text(done.stdout.decode())
    again = cli("render", "again.yaml", "--target", "mpijob", "--stdout")
    (mpijob,) = [d for d in again.objects() if d["kind"] == "MPIJob"]
    assert worker(mpijob) == worker(yaml.safe_load(path.read_text()))


def test_a_non_root_worker_the_operator_cannot_start_is_reported_at_its_user(cli, tmp_path):
    text = (FIXTURES / "mpi-operator-v2beta1" / "pi.yaml").read_text()
    text = text.replace("            command:\n            - /usr/sbin/sshd\n            args:\n            - -De\n"
                        "            - -f\n            - /home/mpiuser/.sshd_config\n", "")
    (tmp_path / "pi.yaml").write_text(text)
    done = cli("import", "pi.yaml", "--stdout")
    assert done.returncode == 0
    (report,) = [line for line in done.stderr.splitlines() if "Worker" in line]
    assert "Worker.template.spec.containers[0].securityContext.runAsUser: the v2beta1 operator runs " \
           "/usr/sbin/sshd -De" in report


@pytest.mark.parametrize("port, keys", [(2022, "/home/u/.ssh/"), (2222, "/opt/keys")])
def test_mpigens_line_names_the_port_and_the_keys_and_imports_back(cli, tmp_path, port, keys):
    """The line listens on spec.ssh.port and reads the operator's id_rsa and authorized_keys
    where sshAuthMountPath mounts them; import gives the port back (the keys' folder is
    sshAuthMountPath itself)."""
    text = NON_ROOT.replace("/home/mpiuser/.ssh", keys) + f"  ssh:\n    port: {port}\n"
    (tmp_path / "job.yaml").write_text(text)
    rendered = cli("render", "job.yaml", "--target", "mpijob", "--stdout")
    assert rendered.returncode == 0, rendered.stderr
    (mpijob,) = [d for d in rendered.objects() if d["kind"] == "MPIJob"]
    said = options(worker(mpijob)[0])
    folder = keys.rstrip("/")
    assert (said["Port"], said["HostKey"], said["AuthorizedKeysFile"], said["config"]) == (
        str(port), f"{folder}/id_rsa", f"{folder}/authorized_keys", "/dev/null")
    (tmp_path / "mpijob.yaml").write_text(yaml.safe_dump(mpijob))
    done = cli("import", "mpijob.yaml", "--stdout")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert yaml.safe_load(done.stdout)["spec"].get("ssh", {}).get("port", 2222) == port
