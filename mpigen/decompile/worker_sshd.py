"""`mpigen import`, the workers' command: what each operator generation runs in a worker, and
the v2beta1 sshd lines a blueprint says (mpigen.compile.user_sshd): the image's sshd
configuration (spec.ssh.sshdConfig), as the MPI Operator's non-root examples write it, and the
line mpigen writes for a worker that is not root.

Kubernetes runs `command` followed by `args`, and the image's entrypoint followed by `args`
when there is no command; the v2beta1 operator runs `/usr/sbin/sshd -De` only when both are
empty (kubeflow/mpi-operator@caa3c47 pkg/controller/mpi_job_controller.go newWorker).
"""

from __future__ import annotations

from mpigen.compile.mpijob import V2BETA1
from mpigen.compile.user_sshd import NO_CONFIG, SSHD, config_line, user_line
from mpigen.formats.ssh import DEFAULT_SSH_PORT

ROOT_SSH_PATH = "/root/.ssh"  # v2beta1's default sshAuthMountPath


def worker_command(r, worker: dict, spec: dict, out: dict) -> None:
    """The operator runs `sleep 365d` (v2beta1: sshd) in a worker whose command is empty
    (v2beta1: command and args); a blueprint's workers get that, or (v2beta1) an sshd line
    of mpigen.compile.user_sshd."""
    cloc = worker["cloc"]
    if r.api == V2BETA1 and (worker["command"] or worker["args"]) and _sshd(r, worker, spec, out):
        return
    if r.api == V2BETA1 and not worker["command"] and not worker["args"] and _non_root(r, worker):
        r.differs(_user_loc(r, worker), "the v2beta1 operator runs /usr/sbin/sshd -De in workers without a "
                                        "command, which as a user other than root cannot read the image's host "
                                        "keys and stops (the workers never get Ready); the imported blueprint's "
                                        "workers run an sshd line of mpigen's that starts as this user "
                                        "(docs/ssh.md), or the image's own configuration with spec.ssh.sshdConfig")
        return
    if worker["command"]:
        idle = "/usr/sbin/sshd -De" if r.api == V2BETA1 else "sleep 365d"
        r.differs(cloc + ("command",), f"the operator runs the workers' command {worker['command']!r} as written "
                                       f"(it runs {idle} only when there is none); a blueprint cannot express it: "
                                       f"its workers run {idle}")
    elif worker["args"] and r.api == V2BETA1:
        r.differs(cloc + ("args",), "the v2beta1 operator keeps the workers' args (it runs /usr/sbin/sshd -De only "
                                    "when command and args are both empty); a blueprint cannot express them: its "
                                    "workers run sshd")


def _sshd(r, worker: dict, spec: dict, out: dict) -> bool:
    """Whether the v2beta1 workers' line is one a blueprint says (then said in `out`)."""
    cloc, argv = worker["cloc"], worker["command"] + worker["args"]
    where = cloc + ("command",) if worker["command"] else cloc + ("args",)
    if len(argv) == 4 and argv[:3] == [SSHD, "-De", "-f"] and argv[3] != NO_CONFIG and argv[3].startswith("/"):
        out.setdefault("ssh", {})["sshdConfig"] = argv[3]
        r.came_from(("ssh", "sshdConfig"), where)
    elif _non_root(r, worker) and (port := _port(argv)) is not None \
            and argv == user_line(_text(spec.get("sshAuthMountPath")) or ROOT_SSH_PATH, port):
        if port != DEFAULT_SSH_PORT:
            out.setdefault("ssh", {})["port"] = port
            r.came_from(("ssh", "port"), where)
    else:
        return False
    if not worker["command"]:
        r.differs(cloc + ("args",), "args without a command run the image's entrypoint with them; a blueprint "
                                    "cannot express that, so the imported workers run the args as their command")
    return True


def _user_loc(r, worker: dict):
    """Where the worker's template says its container's user (the container's, else the pod's)."""
    container = worker["cloc"] + ("securityContext", "runAsUser")
    return container if r.get(container) is not None else worker["loc"] + ("spec", "securityContext", "runAsUser")


def _non_root(r, worker: dict) -> bool:
    """Whether the worker's template runs its container as a user other than root."""
    user = r.get(_user_loc(r, worker))
    return isinstance(user, int) and not isinstance(user, bool) and user != 0


def _text(value) -> str | None:
    """A string value, or None (a value of another type is refused where it is read)."""
    return value if isinstance(value, str) else None


def _port(argv: list[str]) -> int | None:
    """The port of an sshd line of mpigen's (its sixth word), if it is one."""
    word = argv[5] if len(argv) > 5 else ""
    return int(word) if word.isdigit() and 0 < int(word) < 65536 else None
