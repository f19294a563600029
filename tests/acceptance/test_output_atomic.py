"""`render -o DIR` on a hostile machine and against a hostile index (issue 15, defects 1,
4, 5 and 8): whatever fails, DIR holds exactly the old state or the complete new one, the
cause is one `error:` line and exit 2, the owner and mode of what exists are kept, and no
index, forged or hand-edited, makes mpigen delete a file it did not write.

The machine's facts come from the machine: a user who may not write (setpriv to nobody),
a full disk (a small tmpfs), an output folder that is a mount point (a tmpfs mounted on
it), a kill -9 in the middle of the write, two renders at once. Tests that need root or
mount skip with the reason, except under CI=true, where they fail instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import MPIGEN, ROOT, blueprint_text, run_mpigen

NOBODY = 65534
OVERLAY = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\nnamespace: dev\n"


# --- the machine -------------------------------------------------------------------------

def unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    pytest.skip(reason)


def need_root() -> None:
    if os.geteuid() != 0:
        unavailable("it needs root (to mount a tmpfs, or to run as another user and change owners)")


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
    """`mpigen ARGS` as the user nobody (no groups), with the usual umask."""
    need_root()
    if shutil.which("setpriv") is None:
        unavailable("setpriv (util-linux) is not installed")
    return run_mpigen(*args, cwd=cwd, timeout=120,
                      prefix=("setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"))


@pytest.fixture
def shared():
    """A folder every user can reach and write into (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="mpigen-atomic-", dir="/tmp"))
    path.chmod(0o777)
    yield path
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


# --- defect 1: the index ------------------------------------------------------------------

def test_the_index_is_versioned_json_listing_exactly_the_files_written(tmp_path):
    blueprints(tmp_path / "bp", ["one", "two"])
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    data = (tmp_path / "out" / ".mpigen-index").read_bytes()
    assert data.endswith(b"}\n") and b"\r" not in data
    document = json.loads(data)
    assert document["mpigenIndex"] == 1 and list(document) == sorted(document)
    assert list(document["files"]) == sorted(document["files"])
    assert_index_lists_exactly_its_files(tmp_path / "out")


def test_an_index_of_the_old_text_format_is_still_read(tmp_path):
    """Users upgrade with committed output: the files the old index lists are still
    mpigen's (removed when no longer produced), and the next index is JSON."""
    blueprints(tmp_path / "bp", ["one", "two"])
    out = tmp_path / "out"
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    lines = "".join(f"{digest}  {path}\n" for path, digest in sorted(index_of(out).items()))
    (out / ".mpigen-index").write_text("# Files written by `mpigen render`; mpigen removes them when it no "
                                       "longer produces them.\n" + lines)
    (tmp_path / "bp" / "two.yaml").unlink()
    done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0 and b"warning" not in done.stderr, done.stderr
    assert not list(out.glob("team/*-two-*"))
    assert_index_lists_exactly_its_files(out)


def test_a_newline_in_an_overlay_folder_name_forges_no_entry(tmp_path):
    """The overlay's folder name becomes an output folder; with a newline and a digest in
    it, the text index of earlier versions got an entry for README.md. Now the name is
    refused (one line, exit 2) before anything is written, and README.md survives."""
    blueprints(tmp_path / "bp", ["one"])
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("mine\n")
    digest = hashlib.sha256(b"mine\n").hexdigest()
    hostile = f"x\n{digest}  README.md\n{digest}  y"
    (tmp_path / "overlays" / hostile).mkdir(parents=True)
    (tmp_path / "overlays" / hostile / "overlay.yaml").write_text(OVERLAY)
    before = snapshot(out)
    done = run_mpigen("render", "bp", "--overlay", f"overlays/{hostile}", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert error_lines(done.stderr)  # each problem on one line: the newline is shown as \n
    assert snapshot(out) == before
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    assert (out / "README.md").read_text() == "mine\n"


def test_a_forged_line_makes_an_old_text_index_untrusted(tmp_path):
    """An old index that a newline split (a line that is no entry) owns nothing: the
    entry it forged for README.md (with README.md's true digest) deletes nothing."""
    blueprints(tmp_path / "bp", ["one"])
    out = tmp_path / "out"
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    (out / "README.md").write_text("mine\n")
    digest = hashlib.sha256(b"mine\n").hexdigest()
    lines = "".join(f"{d}  {p}\n" for p, d in sorted(index_of(out).items()))
    (out / ".mpigen-index").write_text(f"# Files written by `mpigen render`\n{lines}{digest}  x\n"
                                       f"{digest}  README.md\ny/kustomization.yaml\n")
    done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"warning: " in done.stderr and b".mpigen-index: set aside" in done.stderr
    assert (out / "README.md").read_text() == "mine\n"
    assert_index_lists_exactly_its_files(out, ("README.md",))


@pytest.mark.parametrize("edit", ["wrong digest", "newer version", "not json"])
def test_a_hand_edited_index_never_deletes_a_user_file(tmp_path, edit):
    blueprints(tmp_path / "bp", ["one", "two"])
    out = tmp_path / "out"
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    (out / "README.md").write_text("mine\n")
    (out / "team" / "notes.yaml").write_text("also mine\n")
    document = json.loads((out / ".mpigen-index").read_bytes())
    document["files"]["README.md"] = hashlib.sha256(b"something else\n").hexdigest()
    if edit != "wrong digest":  # an index mpigen cannot trust: not even an entry with the true digest counts
        document["files"]["team/notes.yaml"] = hashlib.sha256(b"also mine\n").hexdigest()
    if edit == "newer version":
        document["mpigenIndex"] = 2
    text = json.dumps(document) if edit != "not json" else "files:\n  README.md: x\n"
    (out / ".mpigen-index").write_text(text)
    (tmp_path / "bp" / "two.yaml").unlink()
    before = snapshot(out)
    done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
    assert (out / "README.md").read_text() == "mine\n"
    assert (out / "team" / "notes.yaml").read_text() == "also mine\n"
    if edit == "wrong digest":
        assert done.returncode == 0, done.stderr
        assert b"warning: out/README.md: left in place" in done.stderr and not list(out.glob("team/*-two-*"))
    else:  # an index it cannot trust owns nothing: the changed kustomization.yaml is not overwritten
        assert done.returncode == 2
        assert b"warning: out/.mpigen-index: set aside" in done.stderr
        assert error_lines(done.stderr) == ["error: out/kustomization.yaml: refusing to overwrite kustomization.yaml: "
                                            "mpigen did not write it (it is not in .mpigen-index); move it away or "
                                            "choose another output folder"]
        assert snapshot(out) == before


def test_a_changed_file_that_is_no_longer_produced_is_left_in_place(tmp_path):
    blueprints(tmp_path / "bp", ["one", "two"])
    out = tmp_path / "out"
    assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
    edited = out / "team" / "job-two-launcher.yaml"
    edited.write_text(edited.read_text() + "# my note\n")
    (tmp_path / "bp" / "two.yaml").unlink()
    done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0
    assert error_lines(done.stderr) == [] and b"job-two-launcher.yaml: left in place" in done.stderr
    assert edited.read_text().endswith("# my note\n")
    assert "team/job-two-launcher.yaml" not in index_of(out)


@pytest.mark.parametrize("name", ["bad\x1bname", "tab\there", "line\u2028separator", "a/../../escape"])
def test_a_path_that_is_not_plain_and_printable_is_never_written(tmp_path, name):
    """The backstop behind the checks at the source: whatever reaches the writer."""
    from mpigen.errors import InputError
    from mpigen.output.folder import write_folder

    out = tmp_path / "out"
    with pytest.raises(InputError) as raised:
        write_folder(out, {f"{name}/job.yaml": "---\n", "kustomization.yaml": "---\n"})
    (problem,) = raised.value.diagnostics
    assert "\n" not in str(problem) and "\x1b" not in str(problem) and "refusing to write" in str(problem)
    assert not out.exists()


def test_an_overlay_named_like_the_index_is_an_error(tmp_path):
    """Refused where the overlay is read or, as a backstop, by the writer: a path that
    would be both the index and a folder."""
    from mpigen.errors import InputError
    from mpigen.output.folder import write_folder

    blueprints(tmp_path / "bp", ["one"])
    (tmp_path / "overlays" / ".mpigen-index").mkdir(parents=True)
    (tmp_path / "overlays" / ".mpigen-index" / "overlay.yaml").write_text(OVERLAY)
    done = run_mpigen("render", "bp", "--overlay", "overlays/.mpigen-index", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and len(error_lines(done.stderr)) == 1
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError) as raised:
        write_folder(tmp_path / "out", {".mpigen-index/kustomization.yaml": "---\n"})
    assert [str(d) for d in raised.value.diagnostics] == [
        f"error: {tmp_path.as_posix()}/out/.mpigen-index: refusing to write .mpigen-index: it would be both a file "
        "and a folder; rename the overlay folder, namespace or name it comes from"]
    assert not (tmp_path / "out").exists()


# --- defects 4 and 8: failures keep the old state, exit 2 ---------------------------------

def test_an_output_path_whose_parent_cannot_be_created(tmp_path):
    blueprints(tmp_path / "bp", ["one"])
    (tmp_path / "file").write_text("x")
    done = run_mpigen("render", "bp", "-o", "file/sub/out", cwd=tmp_path)
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line == ("error: file/sub/out: cannot create the folder file: Not a directory; a file is in the way: "
                    "move it, or choose another output folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bp", "file"]


def test_no_permission_to_create_the_output_folder(shared):
    blueprints(shared / "bp", ["one"])
    (shared / "locked").mkdir(mode=0o755)
    done = as_nobody("render", "bp", "-o", "locked/deep/out", cwd=shared)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: locked/deep/out: cannot create the folder locked/deep: Permission denied; "
                           "give this user permission there")
    assert list((shared / "locked").iterdir()) == []


def test_an_output_folder_this_user_may_not_write_into(shared):
    """Rendered by root; nobody may write the parent (so could swap the folder) but not
    the folder itself, which mpigen then must not replace with one of its own."""
    blueprints(shared / "bp", ["one", "two"])
    assert run_mpigen("render", "bp", "-o", "w/out", cwd=shared).returncode == 0
    (shared / "w").chmod(0o777)
    blueprints(shared / "bp", ["one", "two"], image="example.com/train:2")
    before = snapshot(shared / "w")
    done = as_nobody("render", "bp", "-o", "w/out", cwd=shared)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line == ("error: w/out: cannot write: Permission denied; give this user permission there, or choose "
                    "another output folder (w/out is unchanged)")
    assert snapshot(shared / "w") == before


def test_a_folder_of_the_output_this_user_may_not_write_into_is_undone(shared):
    """The user's own output folder, but one namespace folder belongs to root: the files
    renamed in before the refusal are put back."""
    blueprints(shared / "bp", ["one"], namespace="aaa")
    blueprints(shared / "bp", ["two"], namespace="zzz")
    out = shared / "out"
    assert as_nobody("render", "bp", "-o", "out", cwd=shared).returncode == 0
    chown_tree(out / "zzz", 0, 0)
    blueprints(shared / "bp", ["one"], namespace="aaa", image="example.com/train:2")
    blueprints(shared / "bp", ["two"], namespace="zzz", image="example.com/train:2")
    before = snapshot(out)
    done = as_nobody("render", "bp", "-o", "out", cwd=shared)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: out/zzz/") and ": cannot write: Permission denied;" in line
    assert line.endswith("(out is unchanged)")
    assert snapshot(out) == before and leftovers(out) == []


def test_an_unreadable_folder_inside_the_output_folder(shared):
    blueprints(shared / "bp", ["one"])
    out = shared / "out"
    assert as_nobody("render", "bp", "-o", "out", cwd=shared).returncode == 0
    (out / "private").mkdir(mode=0o700)  # root's
    before = snapshot(out)
    for command in ("render", "check"):
        done = as_nobody(command, "bp", "-o", "out", cwd=shared)
        assert done.returncode == 2, done.stderr
        assert error_lines(done.stderr) == ["error: out/private: cannot read: Permission denied; give this user "
                                            "permission there, or choose another output folder"]
    assert snapshot(out) == before


def fill(folder: Path, leave: int) -> None:
    """Fill the file system of `folder` up to `leave` free bytes, with a user's file."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    (folder / "filler").write_bytes(b"\0" * max(free - leave, 0))


def test_a_full_disk_keeps_the_old_state(tmp_path):
    blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)])
    with tmpfs(tmp_path / "disk", "4m") as disk:
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)], image="example.com/train:2")
        fill(disk, 20 * 4096)  # room for a third of the changed files (a page each)
        before = snapshot(disk)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        (line,) = error_lines(done.stderr)
        assert line.startswith("error: disk/out/team/") and line.endswith(
            ": cannot write: No space left on device; free some space on its file system, then run mpigen again "
            "(disk/out is unchanged)")
        assert snapshot(disk) == before
        (disk / "filler").unlink()
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        assert b"train:2" in (disk / "out" / "team" / "job-job-00-launcher.yaml").read_bytes()
        assert_index_lists_exactly_its_files(disk / "out") and leftovers(disk / "out") == []


def test_a_full_disk_or_a_read_only_one_under_a_new_output_folder(tmp_path):
    blueprints(tmp_path / "bp", [f"job-{i:02d}" for i in range(30)])
    with tmpfs(tmp_path / "disk", "100k") as disk:
        done = run_mpigen("render", "bp", "-o", "disk/a/b/out", cwd=tmp_path)
        assert done.returncode == 2
        (line,) = error_lines(done.stderr)
        assert line.startswith("error: disk/a/b/out/team/") and line.endswith(
            ": cannot write: No space left on device; free some space on its file system, then run mpigen again")
        assert list(disk.iterdir()) == []  # nor the folders made for it
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2
        assert error_lines(done.stderr) == ["error: disk/out: cannot create the folder: Read-only file system; its "
                                            "file system is read-only: choose another output folder"]


def test_a_read_only_file_system(tmp_path):
    blueprints(tmp_path / "bp", ["one"])
    with tmpfs(tmp_path / "disk", "1m") as disk:
        assert run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path).returncode == 0
        blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
        before = snapshot(disk)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        done = run_mpigen("render", "bp", "-o", "disk/out", cwd=tmp_path)
        assert done.returncode == 2
        assert error_lines(done.stderr) == ["error: disk/out: cannot write: Read-only file system; its file system "
                                            "is read-only: choose another output folder (disk/out is unchanged)"]
        assert snapshot(disk) == before


def test_an_output_folder_that_is_a_mount_point(tmp_path):
    """The folder cannot be swapped: files are staged inside it and renamed in; the result
    is the same as in any other folder, and a full disk keeps the old state."""
    names = [f"job-{i:02d}" for i in range(30)]
    blueprints(tmp_path / "bp", names)
    reference = tmp_path / "reference"
    with tmpfs(tmp_path / "out", "4m") as out:
        (out / "README.md").write_text("mine\n")
        for image in ("example.com/train:1", "example.com/train:2"):
            blueprints(tmp_path / "bp", names, image=image)
            done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            shutil.rmtree(reference, ignore_errors=True)
            assert run_mpigen("render", "bp", "-o", "reference", cwd=tmp_path).returncode == 0
            assert files_of(out) == {**files_of(reference), "README.md": b"mine\n"}
            assert leftovers(out) == []
        blueprints(tmp_path / "bp", names[:20], image="example.com/train:3")
        (tmp_path / "bp" / "job-29.yaml").unlink()
        fill(out, 10 * 4096)
        before = snapshot(out)
        done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        (line,) = error_lines(done.stderr)
        assert ": cannot write: No space left on device;" in line and line.endswith("(out is unchanged)")
        assert snapshot(out) == before and leftovers(out) == []


# --- killed and concurrent runs ------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, dict]:
    """A repository of 500 generated blueprints (bench/; 3,200 files) in two versions that differ in
    every workload (blueprints-old/ and blueprints-new/, one of them renamed to
    blueprints/ when used), and the output folder of each, as rendered into a new folder."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    from bench import generate

    root = tmp_path_factory.mktemp("big")
    generate(root, 500, seed=3)
    (root / "blueprints").rename(root / "blueprints-old")
    shutil.copytree(root / "blueprints-old", root / "blueprints-new")
    for path in (root / "blueprints-new").glob("*.yaml"):
        path.write_text(path.read_text().replace("image: ", "image: mirror.example.com/", 1))
    states = {}
    for version in ("old", "new"):
        use(root, version)
        assert start(root, f"expected-{version}").wait() == 0
        states[version] = files_of(root / f"expected-{version}")
    return root, states


def use(root: Path, version: str) -> None:
    """Make blueprints/ the `version` of the blueprints (the sources named in the output
    stay blueprints/...)."""
    if (root / "blueprints").exists():
        other = "new" if (root / "blueprints-old").exists() else "old"
        (root / "blueprints").rename(root / f"blueprints-{other}")
    (root / f"blueprints-{version}").rename(root / "blueprints")


def start(root: Path, out: str) -> subprocess.Popen:
    return subprocess.Popen([*MPIGEN, "render", "blueprints", "--overlay", "dev", "-o", out],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def kill_in_write_phase(root: Path, out: Path, delay: float | None) -> float:
    """Start a render into `out`, wait until its staging folder (beside or inside `out`)
    appears, wait `delay` more, kill -9 (None: let it finish). Returns how long it ran
    after the staging folder appeared (0 when it was killed)."""
    process = start(root, out.name)
    mine = (f".{out.name}.mpigen-{process.pid}-", f".mpigen-stage-{process.pid}-")
    while process.poll() is None and not [name for name in leftovers(out) if name.startswith(mine)]:
        time.sleep(0.001)
    staged = time.monotonic()
    if delay is None:
        assert process.wait() == 0
        return time.monotonic() - staged
    time.sleep(delay)
    killed = process.poll() is None
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return 0.0 if killed else time.monotonic() - staged


def kill_repeatedly(root: Path, out: Path, states: dict, repair) -> list[str]:
    """Render towards the other state than DIR holds, killed at fractions of the write
    phase's length (from its staging folder on); after each kill (and `repair`), DIR
    must be exactly one of the two states."""
    use(root, "old")
    assert start(root, out.name).wait() == 0
    use(root, "new")
    phase = kill_in_write_phase(root, out, None)  # how long writing takes here
    current, outcomes = "new", []
    for delay in [phase * f for f in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)]:
        target = "new" if current == "old" else "old"
        use(root, target)
        killed = not kill_in_write_phase(root, out, delay)
        mixed = files_of(out) not in states.values()
        repair()
        state = files_of(out)
        assert state in states.values(), f"killed {delay} s into the write: neither the old nor the new state"
        assert_index_lists_exactly_its_files(out)
        current = "old" if state == states["old"] else "new"
        outcomes.append(("target" if current == target else "previous") + (" (killed)" if killed else "") +
                        (" (leftovers repaired)" if mixed else ""))
    return [f"write phase {phase:.2f} s"] + outcomes


def test_a_render_killed_in_its_write_phase_leaves_the_old_or_the_new_state(big):
    root, states = big
    out = root / "out"
    outcomes = kill_repeatedly(root, out, states, lambda: None)
    use(root, "new")
    assert start(root, "out").wait() == 0  # the next run repairs what the killed ones left
    assert files_of(out) == states["new"] and leftovers(out) == []
    print("outcomes:", outcomes)


def test_a_mount_point_whose_files_are_all_at_its_top(tmp_path):
    """The in-place write stages files in a folder of its own inside DIR; with no file in a
    sub-folder (mpigen.yaml's Argo CD Applications folder) nothing else creates it."""
    names = ["job-a", "job-b"]
    blueprints(tmp_path / "blueprints", names)
    config = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noutput: out\n"
              "gitops: argocd\nargocd: {{repoURL: 'https://git.example.com/ml.git', targetRevision: {rev}, "
              "applications: apps}}\n")
    with tmpfs(tmp_path / "apps", "1m") as apps:
        for rev in ("main", "dev"):
            (tmp_path / "mpigen.yaml").write_text(config.format(rev=rev))
            done = run_mpigen("render", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            assert f"targetRevision: {rev}\n".encode() in (apps / "application-mpigen.yaml").read_bytes()
            assert leftovers(apps) == []
            assert_index_lists_exactly_its_files(apps)


def test_a_render_killed_while_renaming_into_a_mount_point_is_rolled_back(big):
    """In place, a kill leaves a mix until the next run, whose first step (recover_abandoned)
    rolls the staged files back, or forward when the index was renamed in already."""
    from mpigen.output.commit import recover_abandoned

    root, states = big
    with tmpfs(root / "mounted", "256m") as out:
        outcomes = kill_repeatedly(root, out, states, lambda: recover_abandoned(out))
        assert leftovers(out) == []
        use(root, "new")
        assert start(root, "mounted").wait() == 0
        assert files_of(out) == states["new"]
    print("outcomes:", outcomes)


def test_two_renders_into_one_folder_end_in_one_complete_state(tmp_path):
    for name in ("a", "b"):
        blueprints(tmp_path / f"bp-{name}", [f"{name}-{i:03d}" for i in range(150)], namespace=f"team-{name}")
        assert run_mpigen("render", f"bp-{name}", "-o", f"ref-{name}", cwd=tmp_path).returncode == 0
    references = [files_of(tmp_path / "ref-a"), files_of(tmp_path / "ref-b")]
    for attempt in range(3):
        runs = [subprocess.Popen([*MPIGEN, "render", f"bp-{name}", "-o", "out"], cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for name in ("a", "b")]
        for run in runs:
            assert run.wait() == 0, run.stderr.read()
        assert files_of(tmp_path / "out") in references, f"attempt {attempt}: a mix of both renders"
        assert_index_lists_exactly_its_files(tmp_path / "out") and leftovers(tmp_path / "out") == []


# --- defect 5: owners and modes --------------------------------------------------------------

@pytest.mark.parametrize("mounted", [False, True], ids=["folder", "mount-point"])
def test_a_run_as_root_keeps_the_owner_and_mode_of_what_exists(tmp_path, mounted):
    need_root()
    blueprints(tmp_path / "bp", ["one"])
    with (tmpfs(tmp_path / "out", "4m") if mounted else contextlib.nullcontext(tmp_path / "out")) as out:
        assert run_mpigen("render", "bp", "-o", "out", cwd=tmp_path).returncode == 0
        chown_tree(out, NOBODY, NOBODY)
        out.chmod(0o750)
        (out / "team").chmod(0o2770)
        (out / "notes").mkdir(mode=0o700)
        os.chown(out / "notes", NOBODY, NOBODY)
        (out / "team" / "job-one-launcher.yaml").chmod(0o640)
        blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
        blueprints(tmp_path / "bp", ["two"], namespace="other")
        before = snapshot(out)
        done = run_mpigen("render", "bp", "-o", "out", cwd=tmp_path, preexec_fn=lambda: os.umask(0o022))
        assert done.returncode == 0, done.stderr
        after = snapshot(out)
        for rel in ("", "team", "notes", "team/job-one-launcher.yaml", "kustomization.yaml", ".mpigen-index"):
            assert after[rel][2:5] == before[rel][2:5], rel  # uid, gid, mode
        assert b"train:2" in (out / "team" / "job-one-launcher.yaml").read_bytes()
        assert after["other"][2:5] == (0, 0, 0o755)  # a folder mpigen made: its user, the umask
        assert after["other/job-two-launcher.yaml"][2:5] == (0, 0, 0o644)
