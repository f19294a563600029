"""A copy of this checkout's mpigen that every user of the machine may run: the tests that act as
another user (nobody, through setpriv) and the end-to-end pods' image user cannot run the clone's
own .venv when the clone lies in a folder only its owner may enter (a home folder of mode 700),
nor an interpreter installed under such a folder (pyenv's under /root). On a real kernel, running
a program needs search permission on every folder of its path, and Python then reads its standard
library and its packages as that user.

So, once per session and on first use, a fresh folder under /tmp (mode 0755, removed when the
session ends) gets everything such a run needs:
- an interpreter: the venv's own base interpreter when every user may run it (a system Python),
  else a copy of its installation (the executable, its shared libpython, the standard library
  without its tests), whose library path is made relative to the copy;
- a venv over that interpreter, holding mpigen (its package, from the checkout, and metadata)
  and every distribution it needs at run time, copied file for file from their RECORDs (and,
  when asked, more: the end-to-end image adds mpi4py, Open MPI and MPICH's prefix);
Then it runs the copy as nobody and fails, saying why, unless nobody runs it from there alone.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from importlib import metadata, util
from pathlib import Path

import pytest
from packaging.requirements import Requirement

NOBODY = 65534


def as_user(uid: int) -> tuple[str, ...]:
    """The prefix that runs a command as the user `uid` (its group the same number, no other
    groups): for mpigen, with the copy's python (any_user_install().python)."""
    return ("setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups")


AS_NOBODY = as_user(NOBODY)
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
# What a run of mpigen does not need of the standard library (about 100 MB of 140).
STDLIB_LEFT_OUT = ("site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip",
                   "lib2to3", "pydoc_data")
# The probe nobody runs: where its interpreter, standard library and mpigen come from, and
# which folders on the way to its executable it may not search (a real kernel refuses to
# run a program behind one of them).
PROBE = """
import json, os, sys, mpigen
exe = os.path.realpath(sys.executable)
folders = [os.path.dirname(exe)]
while folders[-1] != "/":
    folders.append(os.path.dirname(folders[-1]))
blocked = [f for f in folders if not os.access(f, os.X_OK)] + ([] if os.access(exe, os.X_OK) else [exe])
print(json.dumps({"prefix": sys.prefix, "stdlib": os.__file__, "mpigen": mpigen.__file__, "blocked": blocked}))
"""


class AnyUserInstall:
    """The copy: `python` runs mpigen for any user; `path_of` says where a file of this venv
    (or one added with `add`) lies in it."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.venv = folder / "venv"
        self.python = self.venv / "bin" / "python"
        self.bin = self.venv / "bin"
        self.site = self.venv / Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
        self.added: set[str] = set()

    def path_of(self, source: Path) -> Path:
        """Where `source`, a path of this venv or one added from elsewhere, lies in the copy."""
        source = Path(source)
        if source.is_relative_to(sys.prefix):
            return self.venv / source.relative_to(sys.prefix)
        return self.folder / "files" / source.name

    def add_distributions(self, *names: str) -> None:
        """Copy these installed distributions (not their requirements) into the copy, once."""
        for name in names:
            if name not in self.added:
                copy_distribution(installed(name), self)
                self.added.add(name)
        self.open_to_all()

    def add(self, source: Path) -> Path:
        """Copy a file or folder (a prefix of its own, such as MPICH's, or a program the end-to-end
        image runs) into the copy, once; where it lies there."""
        target = self.path_of(source)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, symlinks=True)
            else:
                shutil.copy2(source, target)
            self.open_to_all()
        return target

    def open_to_all(self) -> None:
        """Let every user read what the copy holds."""
        make_readable_by_all(self.folder)


_built: list[AnyUserInstall] = []
_failed: list[str] = []


def any_user_install() -> AnyUserInstall:
    """The session's copy, built on first use (a failure to build it fails every test that needs it)."""
    if _failed:
        pytest.fail(_failed[0], pytrace=False)
    if not _built:
        folder = Path(tempfile.mkdtemp(prefix="mpigen-for-any-user-", dir="/tmp"))
        folder.chmod(0o755)
        _built.append(AnyUserInstall(folder))
        try:
            build(_built[0])
        except (OSError, subprocess.CalledProcessError, AssertionError) as exc:
            _failed.append(f"cannot build the copy of mpigen every user may run in {folder}: {exc}")
            pytest.fail(_failed[0], pytrace=False)
    return _built[0]


def remove_any_user_install() -> None:
    """Remove the session's copy, if one was built (at the end of the session)."""
    while _built:
        shutil.rmtree(_built.pop().folder, ignore_errors=True)


def build(install: AnyUserInstall) -> None:
    assert not os.statvfs(install.folder).f_flag & os.ST_NOEXEC, \
        "/tmp is mounted noexec: no program there may run (mount it without noexec)"
    interpreter = base_interpreter(install.folder)
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(install.venv)], check=True,
                   capture_output=True)
    for dist in runtime_closure("mpigen"):
        copy_distribution(dist, install)
        install.added.add(dist.metadata["Name"])
    subprocess.run([str(install.python), "-m", "compileall", "-q", str(install.site / "mpigen")], check=True,
                   capture_output=True)
    install.open_to_all()
    check_nobody_runs(install, interpreter)


# --- the interpreter -------------------------------------------------------------------------

def base_interpreter(folder: Path) -> Path:
    """The venv's base interpreter if every user may run it (its executable, shared library and
    standard library), else a copy of its installation in folder/python."""
    executable = Path(os.path.realpath(sys._base_executable))
    library = shared_library()
    stdlib = Path(sysconfig.get_path("stdlib"))
    needed = [executable, stdlib / "os.py", *([library] if library else [])]
    if all(readable_by_all(path) for path in needed):
        return executable
    prefix = folder / "python"
    copied = prefix / "bin" / executable.name
    copied.parent.mkdir(parents=True)
    shutil.copy2(executable, copied)
    if library:
        (prefix / "lib").mkdir()
        shutil.copy2(library, prefix / "lib" / library.name)
        relative_library_path(copied, str(library.parent), "$ORIGIN/../lib")
    shutil.copytree(stdlib, prefix / "lib" / VERSION, ignore=_stdlib_left_out(stdlib))
    make_readable_by_all(prefix)
    return copied


def shared_library() -> Path | None:
    """The shared libpython the executable loads, for a build with --enable-shared."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return None
    return Path(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME"))


def _stdlib_left_out(stdlib: Path):
    def ignore(folder: str, names: list[str]) -> list[str]:
        left = [n for n in names if n.endswith((".opt-1.pyc", ".opt-2.pyc"))]  # only plain runs' bytecode
        if Path(folder) == stdlib:
            left += [n for n in names if n in STDLIB_LEFT_OUT or n.startswith("config-")]
        return left
    return ignore


def relative_library_path(executable: Path, old: str, new: str) -> None:
    """Point the copied executable's library path (RUNPATH or RPATH) at `new` where it names
    `old`, the private folder the original was linked against, in place, as patchelf does for
    a path no longer than the old one. An executable that does not name `old` (its path is
    relative already, as $ORIGIN/../lib, or it has none) is left as it is: the check as nobody
    tells whether it finds its library."""
    data = executable.read_bytes()
    whole = b"\0" + old.encode() + b"\0"
    if whole not in data:
        return
    assert data.count(whole) == 1, f"{executable}: names {old} more than once; cannot tell which is its library path"
    assert len(new) <= len(old), f"{executable}: {new} does not fit in place of {old}"
    replaced = b"\0" + new.encode().ljust(len(old), b"\0") + b"\0"
    executable.write_bytes(data.replace(whole, replaced))


# --- the distributions -----------------------------------------------------------------------

def runtime_closure(name: str) -> list[metadata.Distribution]:
    """The distribution and every one it requires at run time (no extras), recursively."""
    found: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        dist = installed(todo.pop())
        key = dist.metadata["Name"].lower().replace("_", "-").replace(".", "-")
        if key in found:
            continue
        found[key] = dist
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(found.values())


def installed(name: str) -> metadata.Distribution:
    """The distribution `name` as this venv installed it (its site-packages): not an egg-info a
    build left beside the sources, whose file list is that of its last build."""
    found = next(iter(metadata.distributions(name=name, path=[sysconfig.get_path("purelib")])), None)
    if found is None:
        raise AssertionError(f"{name} is not installed in {sys.prefix}")
    return found


def copy_distribution(dist: metadata.Distribution, install: AnyUserInstall) -> None:
    """Copy the files a distribution's RECORD lists (its scripts pointed at the copy's python);
    an editable install (mpigen's own) gets its packages from where they import."""
    if not dist.files:
        raise AssertionError(f"{dist.metadata['Name']} lists no files (no RECORD): cannot copy it")
    editable = any(path.name.startswith("__editable__") for path in dist.files)
    for path in dist.files:
        source = Path(dist.locate_file(path))
        if editable and path.name.startswith("__editable__"):
            continue
        if source.is_file():
            _copy_file(source, Path(os.path.normpath(install.site / path)), install)
    if editable:
        for package in (dist.read_text("top_level.txt") or "").split():
            found = util.find_spec(package)
            shutil.copytree(Path(found.origin).parent, install.site / package, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))


def _copy_file(source: Path, target: Path, install: AnyUserInstall) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    shebang = f"#!{sys.executable}\n".encode()
    if target.parent == install.bin and target.read_bytes().startswith(shebang):
        target.write_bytes(f"#!{install.python}\n".encode() + target.read_bytes()[len(shebang):])


# --- who may read what -----------------------------------------------------------------------

def readable_by_all(path: Path) -> bool:
    """Whether any user may reach `path` (search every folder on the way) and read it, by the
    modes for users other than the owner and the group (as the kernel judges nobody)."""
    path = Path(os.path.realpath(path))
    try:
        modes = [os.stat(folder).st_mode for folder in path.parents] + [os.stat(path).st_mode]
    except OSError:
        return False
    return all(mode & stat.S_IXOTH for mode in modes[:-1]) and bool(modes[-1] & stat.S_IROTH)


def make_readable_by_all(root: Path) -> None:
    """Let every user read and search what the copy holds (the source's modes may be 0700 or
    0600, under a umask of 077), keeping each file's execute bit for all who may read it."""
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                os.chmod(path, 0o755 if mode & stat.S_IXUSR else 0o644)


def check_nobody_runs(install: AnyUserInstall, interpreter: Path) -> None:
    """Run the probe as nobody: the copy's venv, its interpreter's standard library and mpigen,
    and no folder on the way to the executable that nobody may not search."""
    # Without PYTHONPATH (set to run the tests from a worktree): the copy must run alone, as the
    # pods' `env -i` and the tests' other users run it.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([*AS_NOBODY, str(install.python), "-c", PROBE], capture_output=True, text=True,
                          cwd="/", timeout=120, env=env)
    assert done.returncode == 0, f"user nobody cannot run {install.python}: {done.stderr.strip()[-300:]}"
    seen = json.loads(done.stdout)
    base = interpreter.parent.parent
    assert seen["prefix"] == str(install.venv), f"nobody's python runs in {seen['prefix']}, not {install.venv}"
    assert seen["stdlib"].startswith(f"{base}/"), \
        f"nobody's python reads the standard library {seen['stdlib']}, not its own under {base}"
    assert seen["mpigen"].startswith(f"{install.site}/"), f"nobody imports {seen['mpigen']}, not the copy's"
    assert not seen["blocked"], f"nobody may not search {seen['blocked']}, on the way to its python"
