"""`mpigen import` on the command line: stdout by default, -o all or nothing, never over
anything, --strict turning each loss into an error (issue 15, defect 8).

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.import_round_trip import job
from tests.support.output_machine import as_nobody
from tests.support.paths import ROOT
from tests.support.text import pos


# --- the command line: stdout by default, -o all or nothing, never over anything --------

def need(reason: str | None) -> None:
    """Skip with the reason, except under CI=true, which must run every test."""
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    if reason:
        pytest.skip(reason)


def three_jobs(folder) -> None:
    """Three MPIJobs whose blueprints go to out/a, out/b and out/c (written in that order)."""
    text = "".join("---\n" + job().replace("  name: train\n", f"  name: train\n  namespace: {ns}\n")
                   for ns in ("a", "b", "c"))
    (folder / "jobs.yaml").write_text(text)


def snapshot(folder) -> dict:
    """Every path under folder, with its kind, mode, owner and content (a link's target)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        body = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        out[path.relative_to(folder).as_posix()] = (info.st_mode, info.st_uid, body)
    return out


def test_import_prints_the_blueprints_on_stdout_without_an_option(tmp_path):
    three_jobs(tmp_path)
    plain = run_mpigen("import", "jobs.yaml", cwd=tmp_path)
    assert plain.returncode == 0 and plain.stderr == b""
    assert [d["metadata"]["namespace"] for d in yaml.safe_load_all(plain.stdout)] == ["a", "b", "c"]
    assert run_mpigen("import", "jobs.yaml", "--stdout", cwd=tmp_path).stdout == plain.stdout
    assert not any(p.name != "jobs.yaml" for p in tmp_path.iterdir())


@pytest.mark.parametrize("kind", ["dangling link", "link to a file", "file", "folder"])
def test_import_refuses_any_existing_target_path(tmp_path, kind):
    three_jobs(tmp_path)
    (tmp_path / "out" / "b").mkdir(parents=True)
    (tmp_path / "elsewhere").write_text("keep\n")
    target = tmp_path / "out" / "b" / "train.yaml"
    {"dangling link": lambda: target.symlink_to(tmp_path / "nowhere"),
     "link to a file": lambda: target.symlink_to(tmp_path / "elsewhere"),
     "file": lambda: target.write_text("mine\n"), "folder": lambda: target.mkdir()}[kind]()
    before = snapshot(tmp_path)
    done = run_mpigen("import", "jobs.yaml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == ("error: out/b/train.yaml: refusing to overwrite an existing file; move it "
                                    "away or choose another -o folder\n")
    assert snapshot(tmp_path) == before


def test_an_output_folder_that_cannot_be_made_is_exit_2_naming_it(tmp_path):
    three_jobs(tmp_path)
    (tmp_path / "out").write_text("a file\n")
    done = run_mpigen("import", "jobs.yaml", "-o", "out/sub", cwd=tmp_path)
    assert (done.returncode, done.stderr.decode()) == (2, "error: out: cannot create this folder: a file is in "
                                                          "the way\n")
    assert (tmp_path / "out").read_text() == "a file\n"


@pytest.fixture
def shared_tmp():
    """A folder user nobody can reach (pytest's own is root's alone)."""
    import tempfile

    need(None if os.geteuid() == 0 else "needs root, to run mpigen as user nobody")
    need(None if shutil.which("setpriv") else "setpriv (util-linux) is not installed")
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="mpigen-import-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


def test_a_failed_import_removes_what_it_wrote_and_nothing_else(shared_tmp):
    """The third blueprint cannot be written (its folder is not the user's): the first two,
    and the folders made for them, are removed; what was there stays as it was."""
    three_jobs(shared_tmp)
    out = shared_tmp / "out"
    (out / "c").mkdir(parents=True)
    out.chmod(0o777)
    (out / "c").chmod(0o555)
    (out / "mine.txt").write_text("keep\n")
    before = snapshot(shared_tmp)
    done = as_nobody("import", "jobs.yaml", "-o", "out", cwd=shared_tmp)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "error: out/c/train.yaml: cannot write: Permission denied\n"
    assert snapshot(shared_tmp) == before


def test_an_output_folder_nobody_may_create_is_exit_2(shared_tmp):
    three_jobs(shared_tmp)
    (shared_tmp / "locked").mkdir(mode=0o555)
    (shared_tmp / "locked").chmod(0o555)
    done = as_nobody("import", "jobs.yaml", "-o", "locked/out", cwd=shared_tmp)
    assert (done.returncode, done.stderr.decode()) == (2, "error: locked/out: cannot create this folder: "
                                                          "Permission denied\n")
    assert list((shared_tmp / "locked").iterdir()) == []


@pytest.fixture
def small_disk():
    """A 64 KiB tmpfs, unmounted afterwards."""
    import tempfile
    from pathlib import Path

    need(None if os.geteuid() == 0 else "needs root, to mount a tmpfs")
    folder = Path(tempfile.mkdtemp(prefix="mpigen-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        folder.rmdir()
        need(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
        folder.rmdir()


def test_a_full_disk_leaves_no_half_import(small_disk, tmp_path):
    three_jobs(tmp_path)
    (small_disk / "out").mkdir()
    (small_disk / "out" / "mine.txt").write_text("keep\n")
    filler = small_disk / "filler"
    disk = os.statvfs(small_disk)
    filler.write_bytes(b"x" * ((disk.f_bavail - 2) * disk.f_frsize))  # room for two blueprints, not three
    before = snapshot(small_disk)
    done = run_mpigen("import", str(tmp_path / "jobs.yaml"), "-o", "out", cwd=small_disk)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "error: out/c/train.yaml: cannot write: No space left on device\n"
    assert snapshot(small_disk) == before


def test_strict_turns_each_loss_into_an_error_and_writes_nothing(tmp_path):
    text = job(launcher="      restartPolicy: Never\n")
    (tmp_path / "job.yaml").write_text(text)
    line, column = pos(text, "restartPolicy: Never", "restartPolicy")
    loose = run_mpigen("import", "job.yaml", "-o", "out", cwd=tmp_path)
    assert loose.returncode == 0 and f"job.yaml:{line}:{column}: warning: " in loose.stderr.decode()
    assert (tmp_path / "out" / "default" / "train.yaml").is_file()
    strict = run_mpigen("import", "job.yaml", "-o", "strict", "--strict", cwd=tmp_path)
    assert (strict.returncode, strict.stdout) == (2, b"")
    assert strict.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: ")
    assert not (tmp_path / "strict").exists()


def test_an_imported_blueprint_names_its_schema_as_the_examples_do(tmp_path):
    """Its first line is the examples' `# yaml-language-server: $schema=...`, and the path it
    names, from where the file is written, is the repository's schemas/blueprint.schema.json."""
    shutil.copytree(ROOT / "schemas", tmp_path / "repo" / "schemas")
    (tmp_path / "repo" / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\n")
    (tmp_path / "repo" / "team").mkdir()
    fixture = ROOT / "tests" / "support" / "fixtures" / "mpi-operator-v2beta1" / "tensorflow-mnist.yaml"
    done = run_mpigen("import", str(fixture), "-o", "imported", cwd=tmp_path / "repo" / "team")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "repo" / "team" / "imported" / "default" / "tensorflow-mnist.yaml"
    first = written.read_text().splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")
    schema = written.parent / first.removeprefix("# yaml-language-server: $schema=")
    assert json.loads(schema.read_text())["title"] == json.loads((ROOT / "schemas" / "blueprint.schema.json")
                                                                .read_text())["title"]
    example = (ROOT / "blueprints" / "tensorflow-mnist.yaml").read_text().splitlines()[0]
    stdout = run_mpigen("import", str(fixture), cwd=tmp_path).stdout.decode()
    assert stdout.splitlines()[0] == example  # as the examples, which sit in blueprints/
    assert run_mpigen("validate", str(written), cwd=tmp_path).returncode == 0
