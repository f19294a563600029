"""The workers' sshd on target mpijob (kubeflow.org/v2beta1), where the operator's Secret and
the job's image are all it has, and the line `mpigen import` reads back.

The operator runs `/usr/sbin/sshd -De` in a worker whose command and args are both empty, and
mounts its Secret at spec.sshAuthMountPath as the files id_rsa (the private key),
id_rsa.pub and authorized_keys, mode 0600 at /root/.ssh and the Secret volume's default
(0644, root's) elsewhere (kubeflow/mpi-operator@caa3c47 pkg/controller/mpi_job_controller.go:
newWorker, setupSSHOnPod, sshVolumeItems). `/usr/sbin/sshd -De` reads the image's
/etc/ssh/sshd_config and its host keys, which only root can read: as any other user it stops
("sshd: no hostkeys available -- exiting") and the worker never listens. So a worker that
runs sshd as another user gets a command:
- spec.ssh.sshdConfig: `/usr/sbin/sshd -De -f <it>`, the image's own configuration for that
  user (the operator's images: /home/mpiuser/.sshd_config, whose HostKey is
  /home/mpiuser/.ssh/id_rsa: build/base/sshd_config and build/base/Dockerfile);
- else mpigen's: no configuration file (-f /dev/null) and everything on the line: the port
  (spec.ssh.port), the Secret's id_rsa as the host key (readable by any user at a path other
  than /root/.ssh), its authorized_keys, no pid file (the user cannot write /run), and no
  checks of owners and modes (the Secret's files are root's).
A root sshd without spec.ssh.sshdConfig keeps the operator's line (no command).
"""

from __future__ import annotations

import posixpath

SSHD = "/usr/sbin/sshd"
PRIVATE_KEY_FILE = "id_rsa"  # the operator's sshPrivateKeyFile
AUTHORIZED_KEYS_FILE = "authorized_keys"  # the operator's sshAuthorizedKeysFile
NO_CONFIG = "/dev/null"


def config_line(config: str) -> list[str]:
    """sshd with the image's configuration file `config`."""
    return [SSHD, "-De", "-f", config]


def user_line(mount: str, port: int) -> list[str]:
    """sshd as any user, with the operator's keys mounted at `mount` (its sshAuthMountPath)."""
    return [SSHD, "-De", "-f", NO_CONFIG, "-p", str(port), "-h", posixpath.join(mount, PRIVATE_KEY_FILE),
            "-o", f"AuthorizedKeysFile={posixpath.join(mount, AUTHORIZED_KEYS_FILE)}", "-o", "PidFile=none",
            "-o", "StrictModes=no"]


def worker_line(sshd_config: str | None, mount: str, port: int, root: bool) -> list[str] | None:
    """The v2beta1 workers' command and args, or None for the operator's own `/usr/sbin/sshd -De`."""
    if sshd_config is not None:
        return config_line(sshd_config)
    return None if root else user_line(mount, port)
