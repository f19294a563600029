"""`render -o DIR`: one file per object plus kustomization.yaml, never touching a file mpigen
did not write, removing what it wrote earlier and no longer produces, changing DIR in one step."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.text import write


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if not p.is_symlink() else b"->" + os.readlink(p).encode())
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_symlink()}


def add_blueprint(tmp_path: Path, name: str, **spec) -> None:
    write(tmp_path / "bp" / f"{name}.yaml", blueprint_text(name, **spec))


def render(tmp_path: Path, *paths: str):
    return run_mpigen("render", *paths, "-o", "out", cwd=tmp_path)


def test_layout_kustomization_and_index(tmp_path):
    add_blueprint(tmp_path, "one", namespace="team")
    assert render(tmp_path, "bp").returncode == 0
    files = tree(tmp_path / "out")
    assert sorted(files) == [
        ".mpigen-index", "kustomization.yaml",
        "team/configmap-one-config.yaml", "team/job-one-launcher.yaml", "team/role-one-launcher.yaml",
        "team/rolebinding-one-launcher.yaml", "team/serviceaccount-one-launcher.yaml",
        "team/statefulset-one-worker.yaml",
    ]
    kustomization = files["kustomization.yaml"].decode()
    assert kustomization.index("serviceaccount-") < kustomization.index("configmap-") < kustomization.index("job-")
    index = files[".mpigen-index"].decode()
    assert "team/job-one-launcher.yaml" in index and "kustomization.yaml" in index
    for name, data in files.items():
        if name.endswith(".yaml"):
            assert data.startswith(b"---\n") and data.endswith(b"\n")


def test_stale_files_are_removed_and_foreign_files_kept(tmp_path):
    add_blueprint(tmp_path, "one")
    add_blueprint(tmp_path, "two", namespace="other")
    assert render(tmp_path, "bp").returncode == 0
    assert (tmp_path / "out" / "other" / "job-two-launcher.yaml").is_file()
    (tmp_path / "out" / "README.md").write_text("mine\n")
    (tmp_path / "out" / "default" / "notes.txt").write_text("mine too\n")
    (tmp_path / "bp" / "two.yaml").unlink()
    assert render(tmp_path, "bp").returncode == 0
    files = tree(tmp_path / "out")
    assert not any("two-" in name for name in files)
    assert not (tmp_path / "out" / "other").exists()  # emptied folders go too
    assert files["README.md"] == b"mine\n" and files["default/notes.txt"] == b"mine too\n"
    assert "two" not in files["kustomization.yaml"].decode()


def test_a_file_mpigen_did_not_write_is_never_overwritten(tmp_path):
    add_blueprint(tmp_path, "one")
    out = tmp_path / "out" / "default"
    out.mkdir(parents=True)
    (out / "job-one-launcher.yaml").write_text("# hand-written\n")
    before = tree(tmp_path / "out")
    done = render(tmp_path, "bp")
    assert done.returncode == 2
    assert b"refusing to overwrite default/job-one-launcher.yaml" in done.stderr
    assert tree(tmp_path / "out") == before


def test_identical_foreign_file_is_adopted(tmp_path):
    add_blueprint(tmp_path, "one")
    assert render(tmp_path, "bp").returncode == 0
    (tmp_path / "out" / ".mpigen-index").unlink()
    assert render(tmp_path, "bp").returncode == 0
    assert (tmp_path / "out" / ".mpigen-index").exists()


def test_symlink_on_the_way_is_refused(tmp_path):
    add_blueprint(tmp_path, "one")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "default").symlink_to(tmp_path / "elsewhere")
    done = render(tmp_path, "bp")
    assert done.returncode == 2 and b"symbolic link" in done.stderr
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_output_path_that_is_a_file(tmp_path):
    add_blueprint(tmp_path, "one")
    (tmp_path / "out").write_text("x")
    done = render(tmp_path, "bp")
    assert done.returncode == 2 and b"not a folder" in done.stderr
    assert (tmp_path / "out").read_text() == "x"


def test_rerender_is_a_no_op_and_keeps_folder_mode(tmp_path):
    add_blueprint(tmp_path, "one")
    assert render(tmp_path, "bp").returncode == 0
    os.chmod(tmp_path / "out", 0o750)
    before = tree(tmp_path / "out")
    assert render(tmp_path, "bp").returncode == 0
    assert tree(tmp_path / "out") == before
    assert (os.stat(tmp_path / "out").st_mode & 0o777) == 0o750
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.mpigen")]  # no staging left behind


def test_output_folder_must_not_overlap_the_input(tmp_path):
    add_blueprint(tmp_path, "one")
    for out in ("bp", "bp/out", "."):
        done = run_mpigen("render", "bp", "-o", out, cwd=tmp_path)
        assert done.returncode == 2 and b"overlaps the input" in done.stderr, out
    assert sorted(p.name for p in (tmp_path / "bp").iterdir()) == ["one.yaml"]
