"""`render -o DIR` against a hostile index (issue 15, defect 1): the index is versioned JSON
listing exactly the files written, and no index, forged or hand-edited, makes mpigen delete
a file it did not write.

The machine's facts come from the machine: a user who may not write (setpriv to nobody),
a full disk (a small tmpfs), an output folder that is a mount point (a tmpfs mounted on
it), a kill -9 in the middle of the write, two renders at once. Tests that need root or
mount skip with the reason, except under CI=true, where they fail instead.
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from tests.support.command_line import run_mpigen
from tests.support.output_machine import (NOBODY, OVERLAY, assert_index_lists_exactly_its_files, blueprints,
                                          error_lines, index_of, need_root, snapshot)


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


@pytest.mark.parametrize("edit", ["wrong digest", "newer version", "not json", "another user's", "a link"])
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
    if edit == "another user's":  # forged by whoever else may write into the folder
        need_root()
        os.chown(out / ".mpigen-index", NOBODY, NOBODY)
    if edit == "a link":
        (out / ".mpigen-index").rename(tmp_path / "forged")
        (out / ".mpigen-index").symlink_to(tmp_path / "forged")
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
        why = {"another user's": b"set aside: another user, nobody (uid 65534), owns it;",
               "a link": b"set aside: it is a symbolic link;"}.get(edit, b"")
        assert why in done.stderr
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
    from mpigen.output.write import write_folder

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
    from mpigen.output.write import write_folder

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
