"""`make test` for a user who is not root: the whole suite runs as root of a user namespace of
that user's, so that the tests that act as root (running mpigen as user nobody through
setpriv, mounting a tmpfs, changing owners, building the end-to-end test's pretend cluster)
run for real instead of skipping.

`python -m tests.support.user_namespace COMMAND...` runs COMMAND as it is for root (and off
Linux); for another user it runs it under `unshare --user --map-root-user --map-auto --mount`:
the user is root in the namespace, the ids 1 to 65535 (nobody's 65534 among them) are the
user's subordinate ids (/etc/subuid and /etc/subgid, mapped by uidmap's setuid newuidmap and
newgidmap), and the mounts are the namespace's own. The command runs in a root folder of the
namespace's own, as bubblewrap and rootless containers make one (own_root): the machine's
folders are the machine root's, whom a user namespace cannot map, so they show as owned by
the overflow uid 65534, another user to the namespace's root, and mpigen rightly refuses a
cache folder below a folder of another user (/, /tmp, /home); and `ip netns add` needs a
/run/netns the namespace's root may make. When the machine lacks what all that needs, one
line says what to add, and the run stops (exit 2) rather than let the tests that need root skip.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys

INSIDE = "--inside"
ROOT_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
NEEDED_IDS = 65536  # up to nobody's 65534, and the end-to-end pods' 1000 and sshd's own user
NEW_ROOT = "/run/root"  # a tmpfs, on the tmpfs mounted on /run


def main(argv: list[str]) -> int:
    if argv[:1] == [INSIDE]:
        return inside(argv[1:])
    if os.geteuid() == 0 or not sys.platform.startswith("linux"):
        os.execvp(argv[0], argv)
    problem = missing()
    if problem:
        print(f"make test: a user who is not root runs the suite as root of a user namespace, but {problem}",
              file=sys.stderr)
        return 2
    os.execvp("unshare", ["unshare", "--user", "--map-root-user", "--map-auto", "--mount", "--propagation", "private",
                          "--", sys.executable, "-m", "tests.support.user_namespace", INSIDE, *argv])


def inside(argv: list[str]) -> int:
    """In the namespace: root's PATH (with the sbin folders, where chroot is), the namespace's
    own root folder, then the command in the same working folder."""
    path = os.environ.get("PATH", "").split(os.pathsep)
    os.environ["PATH"] = os.pathsep.join([*path, *(f for f in ROOT_PATH if f not in path)])
    cwd = os.getcwd()
    try:
        own_root([cwd, os.path.expanduser("~")])
    except subprocess.CalledProcessError as failed:
        print(f"make test: in the user namespace, {' '.join(failed.cmd)} failed: {failed.stderr.strip()}",
              file=sys.stderr)
        return 2
    os.chroot(NEW_ROOT)
    os.chdir(cwd)
    if not os.path.isdir(os.environ.get("TMPDIR", "/")):
        del os.environ["TMPDIR"]  # a folder of the machine's /tmp, which the namespace's hides
    os.execvp(argv[0], argv)


def own_root(kept: list[str]) -> None:
    """The namespace's root folder, NEW_ROOT: a tmpfs of the namespace's root, in which each top
    folder of the machine is bound (its links made again), but /run, /home and /tmp: each is
    a tmpfs of the namespace's root with the machine's folder's mode; /home holds each folder
    of the machine's /home bound (the users' homes), /tmp those of the `kept` folders (the
    working folder and the home folder) that lie in it, bound at their places below folders
    of the machine's modes."""
    _run("mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run")
    os.mkdir(NEW_ROOT)
    _run("mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", NEW_ROOT)  # a mount, as / is (ip -n remounts it)
    for entry in sorted(os.listdir("/")):
        _bind(f"/{entry}", fresh=entry in ("run", "home", "tmp"))
    if os.path.isdir("/home") and not os.path.islink("/home"):
        for entry in sorted(os.listdir("/home")):
            _bind(f"/home/{entry}")
    kept = [os.path.realpath(path) for path in kept if os.path.isdir(path)]
    for path in _outermost([path for path in kept if path.startswith("/tmp/")]):
        parts = path.split("/")
        for depth in range(3, len(parts)):
            folder = "/".join(parts[:depth])
            if not os.path.isdir(NEW_ROOT + folder):
                os.mkdir(NEW_ROOT + folder)
                os.chmod(NEW_ROOT + folder, stat.S_IMODE(os.stat(folder).st_mode))
        _bind(path)


def _bind(source: str, fresh: bool = False) -> None:
    """`source` at its place in NEW_ROOT: a link made again, a folder bound (with what is
    mounted below it) or, when `fresh`, an empty tmpfs of its mode; a file bound."""
    target = NEW_ROOT + source
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
    elif os.path.isdir(source):
        os.mkdir(target)
        mode = f"mode={stat.S_IMODE(os.stat(source).st_mode):o}"
        _run("mount", *(["-t", "tmpfs", "-o", mode, "tmpfs"] if fresh else ["--rbind", source]), target)
    else:
        open(target, "x").close()
        _run("mount", "--bind", source, target)


def _outermost(paths: list[str]) -> list[str]:
    """The paths that lie in none of the others."""
    return [path for path in sorted(set(paths)) if not any(path.startswith(other + "/") for other in paths)]


def _run(*argv: str) -> None:
    subprocess.run(argv, capture_output=True, text=True, check=True)


def missing() -> str | None:
    """What this machine lacks for the namespace, with how to add it, or None."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    start = _free_start()
    ids = f"{start}-{start + NEEDED_IDS - 1}"
    fix = f"sudo usermod --add-subuids {ids} --add-subgids {ids} {user} (useradd gives each new user a range)"
    for tool, package in (("unshare", "util-linux"), ("newuidmap", "uidmap"), ("newgidmap", "uidmap")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: sudo apt-get install -y {package}"
    for table in ("/etc/subuid", "/etc/subgid"):
        if _first_range(table, user) < NEEDED_IDS:
            return f"{table} gives {user} no first range of {NEEDED_IDS} ids: {fix}"
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--map-auto", "--", "setpriv", "--reuid=65534",
                            "--regid=65534", "--clear-groups", "true"], capture_output=True, text=True)
    if probe.returncode:
        return (f"unshare cannot make one here ({probe.stderr.strip()}): it needs util-linux 2.38 or later, and "
                "unprivileged user namespaces enabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu also "
                "kernel.apparmor_restrict_unprivileged_userns=0)")
    return None


def _free_start() -> int:
    """The first id after every range /etc/subuid and /etc/subgid give (100000 when none)."""
    ends = [100000]
    for table in ("/etc/subuid", "/etc/subgid"):
        for fields in (line.split(":") for line in _lines(table)):
            if len(fields) == 3 and fields[1].isdigit() and fields[2].isdigit():
                ends.append(int(fields[1]) + int(fields[2]))
    return max(ends)


def _lines(table: str) -> list[str]:
    try:
        return open(table, encoding="utf-8").read().splitlines()
    except OSError:
        return []


def _first_range(table: str, user: str) -> int:
    """The size of the first range of subordinate ids `table` gives the user (by name or uid),
    the one `unshare --map-auto` maps; 0 when there is none."""
    for fields in (line.split(":") for line in _lines(table)):
        if len(fields) == 3 and fields[0] in (user, str(os.geteuid())) and fields[2].isdigit():
            return int(fields[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
