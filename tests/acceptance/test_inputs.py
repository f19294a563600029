"""Trust, second pass (issue 15), the input side: what mpigen cannot read is an error,
never a skip; nothing it reads can block it; a machine that cannot take the output is an
error of the machine; and a bare overlay name means the same overlay from any folder.

- Defect 2: an unreadable blueprint file or folder (at any depth), overlay, base overlay or
  mpigen.yaml is `error: PATH: ...` with how to fix it, exit 2, and the committed output
  stays byte for byte as it was (dropping the input would drop its jobs from the output,
  and Argo CD or Flux would prune them). Root reads everything, so these run as the user
  nobody (setpriv) when the tests run as root.
- Defect 7: a FIFO, socket or device, named or met in a search, as an overlay or as
  mpigen.yaml, is an error, without being opened (the subprocess timeout guards the hang).
- Defect 8 (input side): broken and looping symbolic links on the command line, and a
  standard output that is closed or full, are `error:` lines and exit 2, never exit 3.
- Defect 12: a bare overlay name is looked up in the repository's overlays/ folder, not in
  the working folder.
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import MPIGEN, blueprint_text, run_mpigen, write

NOBODY = 65534
OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
CONFIG = """\
apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
overlays: [dev, prod]
output: out
"""
# The four ways a run reads the repository: render (into the output folder, and as a
# stream), validate, and check.
COMMANDS = {"render-o": ("render", "-o", "out"), "render-stdout": ("render", "--stdout"),
            "validate": ("validate",), "check": ("check",)}


def _need(reason: str | None) -> None:
    """Skip with the reason, except under CI, which must run every test."""
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    if reason:
        pytest.skip(reason)


# --- a repository, and a user who cannot read what is chmod 000 -----------------------------

def _make_repository(root: Path) -> None:
    write(root / "mpigen.yaml", CONFIG)
    write(root / "blueprints/one.yaml", blueprint_text("one"))
    write(root / "blueprints/team/two.yaml", blueprint_text("two"))
    write(root / "blueprints/team/deep/three.yaml", blueprint_text("three"))
    write(root / "overlays/dev/overlay.yaml", OVERLAY + "namespace: dev\n")
    write(root / "overlays/prod/overlay.yaml", OVERLAY + "bases: [pool]\nnamespace: prod\n")
    write(root / "overlays/pool/overlay.yaml", OVERLAY + "labels: {pool: a100}\n")


@pytest.fixture
def repo():
    """A repository with its committed output, in a folder every user may enter (pytest's
    own temporary folders are private to their owner), removed afterwards whatever modes
    a test left in it."""
    root = Path(tempfile.mkdtemp(prefix="mpigen-trust-inputs-"))
    root.chmod(0o755)
    try:
        _make_repository(root)
        done = run_mpigen("render", cwd=root)
        assert done.returncode == 0, done.stderr.decode()
        yield root
    finally:
        for folder, dirs, files in os.walk(root):
            for name in dirs + files:
                path = Path(folder, name)
                if not path.is_symlink():
                    path.chmod(0o755)
        shutil.rmtree(root)


@pytest.fixture
def unprivileged():
    """unprivileged(*ARGS, cwd=...) runs mpigen as a user for whom chmod 000 means
    unreadable: this user when it is not root, else nobody (through setpriv)."""
    if os.geteuid() != 0:
        return run_mpigen
    _need(None if shutil.which("setpriv") else "setpriv (util-linux) is not installed")
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import mpigen"], capture_output=True)
    _need(None if probe.returncode == 0 else f"the user nobody cannot run this mpigen installation: "
                                              f"{probe.stderr.decode().strip()[-200:]}")

    return functools.partial(run_mpigen, prefix=prefix)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path below root with its type and mode, and the bytes of the files."""
    state = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            info = path.lstat()
            content = path.read_bytes() if stat.S_ISREG(info.st_mode) and os.access(path, os.R_OK) else None
            state[path.relative_to(root).as_posix()] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), content)
    return state


def refused(done, where: str) -> list[str]:
    """The error lines of a run that must have been refused: exit 2, no traceback, nothing
    on standard output."""
    stderr = done.stderr.decode()
    assert "Traceback" not in stderr and "internal error" not in stderr, f"{where}:\n{stderr}"
    assert done.returncode == 2, f"{where}: exit {done.returncode}\n{stderr}"
    assert done.stdout in (b"", None), where  # (None: it went to /dev/full)
    return stderr.splitlines()


READ = "make it readable (chmod a+r)"
LIST = "make it readable (chmod a+rx)"
SEARCHED = "or move it out of the searched folder"
UNREADABLE = {
    # what is made unreadable: (path, mode, the error lines every command must print)
    "blueprint-file": ("blueprints/one.yaml", 0o000, [
        f"error: blueprints/one.yaml: cannot read file: Permission denied; {READ} {SEARCHED}"]),
    "blueprint-folder": ("blueprints/team", 0o000, [
        f"error: blueprints/team: cannot read folder: Permission denied; {LIST} {SEARCHED}"]),
    "blueprint-folder-deep": ("blueprints/team/deep", 0o000, [
        f"error: blueprints/team/deep: cannot read folder: Permission denied; {LIST} {SEARCHED}"]),
    "blueprint-folder-not-searchable": ("blueprints/team", 0o644, [
        f"error: blueprints/team/deep: cannot read folder: Permission denied; {LIST} {SEARCHED}",
        "error: blueprints/team/two.yaml: cannot reach it: Permission denied; make the folders above it "
        f"searchable (chmod a+x) {SEARCHED}"]),
    "overlay-file": ("overlays/prod/overlay.yaml", 0o000, [
        f"error: overlays/prod/overlay.yaml: cannot read file: Permission denied; {READ} or stop using this overlay"]),
    "overlay-folder": ("overlays/dev", 0o000, [
        f"error: overlays/dev: cannot read folder: Permission denied; {LIST} or stop using this overlay"]),
    "base-overlay-file": ("overlays/pool/overlay.yaml", 0o000, [
        f"error: overlays/pool/overlay.yaml: cannot read file: Permission denied; {READ} or stop using this overlay"]),
    "base-overlay-folder": ("overlays/pool", 0o000, [
        f"error: overlays/pool: cannot read folder: Permission denied; {LIST} or stop using this overlay"]),
    "config": ("mpigen.yaml", 0o000, [
        f"error: mpigen.yaml: cannot read file: Permission denied; {READ} or run mpigen in another folder"]),
}


@pytest.mark.parametrize("case", UNREADABLE)
def test_an_unreadable_input_is_an_error_and_the_committed_output_stays(repo, unprivileged, case):
    path, mode, expected = UNREADABLE[case]
    (repo / path).chmod(mode)
    before = snapshot(repo)
    for name, args in COMMANDS.items():
        done = unprivileged(*args, cwd=repo)
        assert refused(done, f"{case}, {name}") == expected, name
        assert snapshot(repo) == before, f"{case}, {name}: the repository changed"


def test_the_user_can_read_the_repository_when_nothing_is_locked(repo, unprivileged):
    """The cases above fail because of the one locked path, not because of the user."""
    for name, args in COMMANDS.items():
        if name != "render-o":  # (the output folder belongs to the user who rendered it)
            done = unprivileged(*args, cwd=repo)
            assert done.returncode == 0, (name, done.stderr.decode())


def test_a_readable_file_that_is_not_yaml_still_warns_and_is_skipped(repo):
    """Not a read failure: the file was read, and nothing in it looks like a blueprint."""
    write(repo / "blueprints/notes.yaml", "{{ a template, not YAML\n")
    done = run_mpigen("validate", cwd=repo)
    assert done.returncode == 0, done.stderr.decode()
    (line,) = [line for line in done.stderr.decode().splitlines() if "notes.yaml" in line]
    assert line.startswith("blueprints/notes.yaml:") and ": warning: invalid YAML: " in line
    assert line.endswith("; skipped (not recognisable as a blueprint)")


# --- FIFOs, sockets and devices: refused without being opened --------------------------------

FIFO = "is a FIFO (named pipe), not a regular file or folder; use a regular file"


@pytest.fixture
def fifo_repo(repo):
    os.mkfifo(repo / "pipe.yaml")
    return repo


@pytest.mark.parametrize("args", [("render", "pipe.yaml", "--stdout"), ("render", "pipe.yaml", "-o", "elsewhere"),
                                  ("validate", "pipe.yaml"), ("import", "pipe.yaml", "--stdout")],
                         ids=["render-stdout", "render-o", "validate", "import"])
def test_a_fifo_named_on_the_command_line_is_an_error_not_a_hang(fifo_repo, args):
    before = snapshot(fifo_repo)
    done = run_mpigen(*args, cwd=fifo_repo, timeout=60)  # the timeout is the hang guard
    assert refused(done, " ".join(args)) == [f"error: pipe.yaml: {FIFO} or leave it off the command line"]
    assert snapshot(fifo_repo) == before


def test_a_fifo_in_a_searched_folder_is_an_error_not_a_hang_nor_a_skip(repo):
    os.mkfifo(repo / "blueprints/team/deep/pipe.yaml")
    before = snapshot(repo)
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=repo, timeout=60)
        assert refused(done, name) == [f"error: blueprints/team/deep/pipe.yaml: {FIFO} {SEARCHED}"], name
        assert snapshot(repo) == before


def test_a_fifo_as_an_overlay_or_in_an_overlay_folder_is_an_error(repo):
    os.mkfifo(repo / "overlays/odd.yaml")
    done = run_mpigen("render", "blueprints", "--overlay", "overlays/odd.yaml", "--stdout", cwd=repo)
    assert refused(done, "--overlay FIFO") == [f"error: overlays/odd.yaml: {FIFO} or stop using this overlay"]
    os.mkfifo(repo / "overlays/pool/extra.yaml")
    before = snapshot(repo)
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=repo, timeout=60)
        assert refused(done, name) == [f"error: overlays/pool/extra.yaml: {FIFO} or move it out of the overlay "
                                       "folder"], name
        assert snapshot(repo) == before


def test_mpigen_yaml_as_a_fifo_is_an_error_not_ignored(repo):
    (repo / "mpigen.yaml").unlink()
    os.mkfifo(repo / "mpigen.yaml")
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=repo, timeout=60)
        assert refused(done, name) == [f"error: mpigen.yaml: {FIFO} or run mpigen in another folder"], name


def test_a_socket_is_an_error(repo, monkeypatch):
    monkeypatch.chdir(repo / "blueprints")  # a relative name: socket paths are limited to 108 bytes
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind("sock.yaml")
        done = run_mpigen("validate", cwd=repo)
        assert refused(done, "socket") == ["error: blueprints/sock.yaml: is a socket, not a regular file or folder; "
                                           f"use a regular file {SEARCHED}"]
        done = run_mpigen("import", "blueprints/sock.yaml", "--stdout", cwd=repo)
        assert refused(done, "socket")[0].startswith("error: blueprints/sock.yaml: is a socket")
    finally:
        server.close()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
@pytest.mark.parametrize("command", [("render", "--stdout"), ("validate",), ("import", "--stdout")],
                         ids=["render", "validate", "import"])
def test_a_device_is_an_error(tmp_path, device, command):
    _need(None if os.path.exists(device) else f"{device} does not exist here")
    done = run_mpigen(command[0], device, *command[1:], cwd=tmp_path, timeout=60)
    assert refused(done, device) == [f"error: {device}: is a character device, not a regular file or folder; "
                                     "use a regular file or leave it off the command line"]


def test_dev_stdin_that_is_a_pipe_is_an_error_not_a_hang(tmp_path):
    """/dev/stdin is whatever standard input is: here a pipe nobody ever writes to."""
    with subprocess.Popen([*MPIGEN, "render", "/dev/stdin", "--stdout"], cwd=tmp_path,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            out, err = proc.communicate(timeout=60)  # stdin stays open until then: a read would wait
        finally:
            proc.kill()
    assert proc.returncode == 2 and out == b""
    assert err.decode().splitlines() == ["error: /dev/stdin: is a FIFO (named pipe), not a regular file or folder; "
                                         "use a regular file or leave it off the command line"]


# --- links on the command line ------------------------------------------------------------

LINK = "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
LINKS = {"self": {"self.yaml": "self.yaml"}, "dangling": {"dangling.yaml": "missing.yaml"},
         "loop": {"loop.yaml": "loop2.yaml", "loop2.yaml": "loop.yaml"}}


@pytest.mark.parametrize("kind", LINKS)
@pytest.mark.parametrize("args", [("render", "{}", "--stdout"), ("render", "{}", "-o", "elsewhere"),
                                  ("validate", "{}"), ("import", "{}", "--stdout"),
                                  ("render", "blueprints", "--overlay", "./{}", "--stdout")],
                         ids=["render-stdout", "render-o", "validate", "import", "overlay"])
def test_a_broken_or_looping_link_on_the_command_line_is_an_error(repo, kind, args):
    for name, target in LINKS[kind].items():
        os.symlink(target, repo / name)
    first = next(iter(LINKS[kind]))
    before = snapshot(repo)
    done = run_mpigen(*(a.format(first) for a in args), cwd=repo, timeout=60)
    assert refused(done, f"{kind} {args}") == [f"error: {first}: {LINK}"]
    assert snapshot(repo) == before


def test_mpigen_yaml_as_a_broken_link_is_an_error_not_ignored(repo):
    (repo / "mpigen.yaml").unlink()
    os.symlink("nowhere.yaml", repo / "mpigen.yaml")
    for name, args in COMMANDS.items():
        done = run_mpigen(*args, cwd=repo, timeout=60)
        assert refused(done, name) == [f"error: mpigen.yaml: {LINK}"], name


# --- standard output that cannot take the output ---------------------------------------------

def _drift(repo: Path) -> None:
    """A change that `check` reports and `diff` shows."""
    write(repo / "blueprints/one.yaml", blueprint_text("one", workers=3))


# A shell that starts mpigen with its standard output closed (as `>&-`).
CLOSED_STDOUT = ("sh", "-c", 'exec "$0" "$@" >&-')
# Every command that writes standard output, with what it writes there.
WRITERS = {"render": ("render", "--stdout"), "schema": ("schema",), "check": ("check",),
           "diff": ("diff", "out/dev", "out/prod"), "import": ("import", "import.yaml", "--stdout")}
MPIJOB = """\
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: imported}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: mpi-launcher, image: example.com/train:1, command: [mpirun, python, train.py]}]
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: mpi-worker, image: example.com/train:1}]
"""


@pytest.fixture
def writers_repo(repo):
    _drift(repo)
    write(repo / "import.yaml", MPIJOB)
    return repo


@pytest.mark.parametrize("command", WRITERS)
def test_a_closed_standard_output_is_an_error_of_the_machine(writers_repo, command):
    done = run_mpigen(*WRITERS[command], cwd=writers_repo, prefix=CLOSED_STDOUT)
    assert refused(done, command) == ["error: cannot write to standard output: Bad file descriptor; it is closed: "
                                      "run the command with an open standard output"]


@pytest.mark.parametrize("command", WRITERS)
def test_a_full_standard_output_is_an_error_of_the_machine(writers_repo, command):
    _need(None if os.path.exists("/dev/full") else "/dev/full does not exist here")
    with open("/dev/full", "wb") as full:
        done = run_mpigen(*WRITERS[command], cwd=writers_repo, stdout=full, stderr=subprocess.PIPE)
    assert refused(done, command) == ["error: cannot write to standard output: No space left on device; free some "
                                      "space, or send the output elsewhere"]


# A reader that stops reading is not a failure: the command's exit code stays its own.
OWN_EXIT = {"render": 0, "schema": 0, "check": 1, "diff": 1, "import": 0}


@pytest.mark.parametrize("command", WRITERS)
def test_a_reader_that_stops_reading_ends_the_output_quietly(writers_repo, command):
    read, write_end = os.pipe()
    os.close(read)  # before mpigen starts: its first write meets a pipe nobody reads (EPIPE)
    try:
        done = run_mpigen(*WRITERS[command], cwd=writers_repo, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    stderr = done.stderr.decode()
    assert done.returncode == OWN_EXIT[command], stderr
    assert "error" not in stderr and "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


def test_nothing_to_write_is_no_error_even_with_a_closed_standard_output(repo):
    """As `cat /dev/null >&-`: an up-to-date check writes nothing, so a closed standard
    output does not matter."""
    done = run_mpigen("check", cwd=repo, prefix=CLOSED_STDOUT)
    assert done.returncode == 0, done.stderr.decode()


# --- bare overlay names ----------------------------------------------------------------------

def _objects(done) -> list[dict]:
    assert done.returncode == 0, done.stderr.decode()
    return [o for o in yaml.safe_load_all(done.stdout) if o]


def _decoy(folder: Path, name: str) -> None:
    """An overlay named like one of the repository's, where a lookup from the working
    folder would find it."""
    write(folder / name / "overlay.yaml", OVERLAY + "namespace: decoy\nlabels: {decoy: picked}\n")
    write(folder / "overlays" / name / "overlay.yaml", OVERLAY + "namespace: decoy\nlabels: {decoy: picked}\n")


def test_a_bare_base_name_is_the_repositorys_overlay_from_any_folder(repo):
    expected = _objects(run_mpigen("render", "blueprints", "--overlay", "prod", "--stdout", cwd=repo))
    assert {o["metadata"]["namespace"] for o in expected} == {"prod"}
    assert {o["metadata"]["labels"]["pool"] for o in expected} == {"a100"}  # from the base, pool
    _decoy(repo / "blueprints", "pool")
    _decoy(repo.parent / f"{repo.name}-cwd", "pool")
    try:
        from_sub_folder = run_mpigen("render", ".", "--overlay", "../overlays/prod", "--stdout",
                                     cwd=repo / "blueprints")
        from_elsewhere = run_mpigen("render", f"{repo}/blueprints", "--overlay", f"{repo}/overlays/prod", "--stdout",
                                    cwd=repo.parent / f"{repo.name}-cwd")
        for done in (from_sub_folder, from_elsewhere):
            assert _objects(done) == expected
    finally:
        shutil.rmtree(repo.parent / f"{repo.name}-cwd")


def test_a_bare_base_name_of_an_overlay_kept_outside_overlays_is_looked_up_in_the_repository(repo):
    """An overlay in envs/ (named by path): its bare base names are the repository's
    overlays, the repository being the folder of mpigen.yaml, whatever the working folder."""
    write(repo / "envs/staging/overlay.yaml", OVERLAY + "bases: [pool]\nnamespace: staging\n")
    _decoy(repo / "blueprints", "pool")
    _decoy(repo / "envs", "pool")
    done = run_mpigen("render", ".", "--overlay", "../envs/staging", "--stdout", cwd=repo / "blueprints")
    objects = _objects(done)
    assert {o["metadata"]["namespace"] for o in objects} == {"staging"}
    assert {o["metadata"]["labels"]["pool"] for o in objects} == {"a100"}
    assert not any("decoy" in o["metadata"]["labels"] for o in objects)


def test_a_bare_overlay_name_never_means_a_folder_of_the_working_folder(repo):
    """--overlay NAME and mpigen.yaml's overlays name overlays/NAME of the repository: a
    folder NAME in the working folder is not an overlay, even when overlays/NAME is missing."""
    write(repo / "staging/overlay.yaml", OVERLAY + "namespace: staging\n")
    done = run_mpigen("render", "blueprints", "--overlay", "staging", "--stdout", cwd=repo)
    assert refused(done, "--overlay staging") == [
        "error: overlays/staging: no such overlay; an overlay is a folder under overlays/ holding one file of "
        "kind Overlay"]
    write(repo / "mpigen.yaml", CONFIG.replace("[dev, prod]", "[dev, staging]"))
    done = run_mpigen("validate", cwd=repo)
    assert refused(done, "mpigen.yaml overlays") == [
        "error: overlays/staging: no such overlay; an overlay is a folder under overlays/ holding one file of "
        "kind Overlay"]
    done = run_mpigen("render", "blueprints", "--overlay", "./staging", "--stdout", cwd=repo)
    assert {o["metadata"]["namespace"] for o in _objects(done)} == {"staging"}  # a path still names it


def test_running_out_of_memory_is_the_machine_s_limit_not_a_bug(tmp_path):
    """Under a 130 MiB address-space limit (ulimit -v) a blueprint with 100,000 env entries
    cannot be rendered: one error line, exit 2, no traceback, nothing on stdout."""
    import json
    import resource

    env = {f"V{i}": "x" for i in range(100_000)}
    text = blueprint_text("big", env=env)
    assert json.loads(text)["spec"]["env"] == env
    write(tmp_path / "big.yaml", text)

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (130 << 20, 130 << 20))

    done = run_mpigen("render", "big.yaml", "--stdout", cwd=tmp_path, preexec_fn=limit, timeout=120)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    assert done.stderr.decode() == ("error: mpigen ran out of memory; give it more (ulimit -v, the container's "
                                    "memory limit) or render fewer blueprints at once\n")
