"""The machine and the output folder of the `render -o DIR` safety tests
(tests/acceptance/output/): root, nobody, tmpfs mounts, and what DIR holds."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.any_user import AS_NOBODY, NOBODY, any_user_install
from tests.support.blueprints import blueprint_text
from tests.support.cache_folders import environment_of
from tests.support.command_line import run_mpigen

OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\nnamespace: dev\n"


# --- the machine -------------------------------------------------------------------------

def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    pytest.skip(reason)


def need_root() -> None:
    if os.geteuid() != 0:
        unavailable("it needs root (to mount a tmpfs, or to run as another user and change owners); `make test` "
                    "runs the suite as root of a user namespace for a user who is not root")


@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    """A tmpfs of `size` mounted on `path` (created if missing), unmounted afterwards."""
    need_root()
    path.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode:
        unavailable(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield path
    finally:
        if subprocess.run(["umount", str(path)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(path)], check=True)


def as_nobody(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`mpigen ARGS` as the user nobody (no groups), with the usual umask: the copy of mpigen
    every user may run (any_user.py), with a cache folder of nobody's own (environment_of)."""
    need_root()
    if shutil.which("setpriv") is None:
        unavailable("setpriv (util-linux) is not installed")
    return run_mpigen(*args, cwd=cwd, timeout=120, env=environment_of(NOBODY), prefix=AS_NOBODY,
                      python=any_user_install().python)


@contextlib.contextmanager
def sticky_folder():
    """A folder in /tmp that every user may reach and write into, sticky as /tmp is (no one
    may rename or remove what another made there), removed afterwards (pytest's tmp_path is
    private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="mpigen-shared-", dir="/tmp"))
    path.chmod(0o1777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


# --- what DIR holds ----------------------------------------------------------------------

def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under `root` (root included) with its kind, bytes, owner, mode and, but
    for folders (whose entries a run adds and removes), mtime."""
    out = {}
    for path in [root, *sorted(root.rglob("*"))]:
        st = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(st.st_mode) else None
        out["" if path == root else path.relative_to(root).as_posix()] = (stat.S_IFMT(st.st_mode), data, st.st_uid, st.st_gid,
                                                  stat.S_IMODE(st.st_mode),
                                                  None if stat.S_ISDIR(st.st_mode) else st.st_mtime_ns)
    return out


def index_of(root: Path) -> dict[str, str]:
    document = json.loads((root / ".mpigen-index").read_bytes())
    assert document["mpigenIndex"] == 1
    return document["files"]


def assert_index_lists_exactly_its_files(root: Path, user_files: tuple[str, ...] = ()) -> None:
    files = files_of(root)
    listed = index_of(root)
    assert set(listed) == set(files) - {".mpigen-index", *user_files}
    for path, digest in listed.items():
        assert hashlib.sha256(files[path]).hexdigest() == digest, path


def leftovers(out: Path) -> list[str]:
    beside = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.mpigen-")]
    inside = [p.name for p in out.iterdir() if p.name.startswith(".mpigen-stage-")] if out.is_dir() else []
    return sorted(beside + inside)


def error_lines(stderr: bytes) -> list[str]:
    """The error lines of stderr, checking that every line is a diagnostic or a summary."""
    lines = stderr.decode().splitlines()
    assert all(line.startswith(("error: ", "warning: ", "mpigen: rendered")) for line in lines), lines
    assert "Traceback" not in stderr.decode()
    return [line for line in lines if line.startswith("error: ")]


def blueprints(folder: Path, names: list[str], image: str = "example.com/train:1", namespace: str = "team") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / f"{name}.yaml").write_text(blueprint_text(name, namespace=namespace, image=image))
