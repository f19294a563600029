"""`render -o DIR` never overwrites a file mpigen wrote and someone edited since (issue 28,
defect 5). The render stops with one error per edited file, naming it and saying how to go on
(exit 2, no folder written), however it would have written the folder (in place, swapped,
where DIR is a mount point, without the cache), until the user makes the edit where the file
comes from, puts the file back, or discards the edit with --discard-edits. A file that holds
exactly what mpigen would write is taken as it is, and a run of one overlay never looks at
another overlay's files. The incremental path's part: tests/acceptance/cache/test_incremental.py.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.output_machine import (OVERLAY, assert_index_lists_exactly_its_files, blueprints, error_lines,
                                          index_of, leftovers, snapshot, tmpfs)

NOTE = b"# a note added by hand\n"
EDITED = "team/job-one-launcher.yaml"


def refused(path: str, folder: str = "out") -> str:
    """The error line of the edited file `path` of `folder`."""
    return (f"error: {folder}/{path}: refusing to overwrite {path}: it was edited by hand since mpigen wrote it "
            "(its bytes are not those .mpigen-index records); the output is generated: keep the edit by making it "
            "where the file comes from (its blueprint, an overlay or mpigen.yaml), discard it with mpigen render "
            f"--discard-edits, or restore the file with git checkout -- {folder}/{path}")


def errors_of(stderr: str) -> list[str]:
    """The error lines of stderr (whose other lines are the blueprints' warnings)."""
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def render(cli, *args: str):
    done = cli("render", "bp", "-o", "out", *args)
    return done, error_lines(done.stderr.encode())


def add_note(path: Path) -> bytes:
    """Append the note to `path`; returns what mpigen wrote there."""
    written = path.read_bytes()
    path.write_bytes(written + NOTE)
    return written


@pytest.fixture
def out(cli, tmp_path) -> Path:
    """Two jobs rendered into out/ (six files each, a kustomization.yaml and the index)."""
    blueprints(tmp_path / "bp", ["one", "two"])
    assert cli("render", "bp", "-o", "out").returncode == 0
    return tmp_path / "out"


@pytest.mark.parametrize("cache", ["with the cache", "--no-cache"])
@pytest.mark.parametrize("change", ["nothing changed", "the blueprint changes the file"])
def test_a_note_added_to_a_rendered_file_stops_the_render(cli, tmp_path, out, change, cache):
    add_note(out / EDITED)
    if change != "nothing changed":
        blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
    before = snapshot(out)
    done, errors = render(cli, *(["--no-cache"] if cache == "--no-cache" else []))
    assert done.returncode == 2 and errors == [refused(EDITED)]
    assert snapshot(out) == before and leftovers(out) == []  # the note kept, every other file untouched (mtimes too)


def test_discard_edits_replaces_the_file_and_says_so(cli, tmp_path, out):
    written = add_note(out / EDITED)
    done, errors = render(cli, "--discard-edits")
    assert done.returncode == 0 and errors == []
    assert f"warning: out/{EDITED}: replaced: it was edited by hand since mpigen wrote it, and --discard-edits " \
           "discards the edit" in done.stderr
    assert (out / EDITED).read_bytes() == written
    assert_index_lists_exactly_its_files(out)
    assert cli("check", "bp", "-o", "out").returncode == 0


def test_every_edited_file_is_named_once_in_order(cli, out):
    """The root kustomization.yaml is a file mpigen wrote like any other."""
    edits = ["team/statefulset-two-worker.yaml", "kustomization.yaml", "team/configmap-one-config.yaml"]
    for path in edits:
        add_note(out / path)
    before = snapshot(out)
    done, errors = render(cli)
    assert done.returncode == 2 and errors == [refused(path) for path in sorted(edits)]
    assert snapshot(out) == before


def test_an_edit_put_back_byte_for_byte_is_no_edit(cli, tmp_path, out):
    written = add_note(out / EDITED)
    (out / EDITED).write_bytes(written)
    blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
    done, errors = render(cli)
    assert done.returncode == 0 and "warning" not in done.stderr
    assert_index_lists_exactly_its_files(out)


def test_a_file_edited_into_what_mpigen_now_writes_is_taken_as_it_is(cli, tmp_path, out):
    blueprints(tmp_path / "bp", ["one"], image="example.com/train:2")
    assert cli("render", "bp", "-o", "fresh").returncode == 0
    new = (tmp_path / "fresh" / EDITED).read_bytes()
    (out / EDITED).write_bytes(new)
    done, errors = render(cli)
    assert done.returncode == 0 and "warning" not in done.stderr
    assert (out / EDITED).read_bytes() == new
    assert_index_lists_exactly_its_files(out)


def test_check_shows_the_edit_as_stale_and_says_render_refuses_it(cli, out):
    add_note(out / EDITED)
    before = snapshot(out)
    done = cli("check", "bp", "-o", "out")
    assert done.returncode == 1 and b"-" + NOTE in done.stdout
    assert f"warning: out/{EDITED}: edited by hand since mpigen wrote it (its bytes are not those .mpigen-index " \
           "records), so mpigen render refuses to overwrite it; the output is generated:" in done.stderr
    assert "mpigen: out is stale: 1 changed file; run `mpigen render` and commit the result" in done.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("how", ["in place", "swapped", "a mount point"])
def test_every_way_of_writing_the_folder_refuses_the_edit(cli, tmp_path, how):
    """In place: one file in 16 or fewer changes (five jobs: 32 files); swapped: more (one
    job: 8 files); a mount point cannot be swapped. Which way was taken shows in DIR's inode
    once the edit is discarded."""
    blueprints(tmp_path / "bp", ["one", "two", "three", "four", "five"] if how == "in place" else ["one"])
    if how == "a mount point":
        with tmpfs(tmp_path / "out", "16m") as out:
            _refused_then_discarded(cli, out, swapped=False)
    else:
        _refused_then_discarded(cli, tmp_path / "out", swapped=how == "swapped")


def _refused_then_discarded(cli, out: Path, swapped: bool) -> None:
    assert render(cli)[0].returncode == 0
    written, before, folder = add_note(out / EDITED), snapshot(out), os.stat(out).st_ino
    done, errors = render(cli)
    assert done.returncode == 2 and errors == [refused(EDITED)]
    assert snapshot(out) == before and leftovers(out) == []
    assert render(cli, "--discard-edits")[0].returncode == 0
    assert (out / EDITED).read_bytes() == written
    assert (os.stat(out).st_ino != folder) is swapped


CONFIG = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [bp]\noutput: out\ngitops: argocd\n"
          "argocd: {repoURL: 'https://git.example.com/ml.git', applications: clusters/argocd}\n")


def test_an_edit_in_a_companion_folder_stops_the_run_before_the_output_folder_is_written(cli, tmp_path):
    """mpigen.yaml's Argo CD Applications folder is planned with the output folder: an edit
    there leaves the output folder as it was, though the render changes it (a label: the
    same run, so the same files); with an edit in both, both are named."""
    blueprints(tmp_path / "bp", ["one", "two"])
    (tmp_path / "mpigen.yaml").write_text(CONFIG)
    assert cli("render").returncode == 0
    application = tmp_path / "clusters" / "argocd" / "application-mpigen.yaml"
    add_note(application)
    (tmp_path / "bp" / "one.yaml").write_text(blueprint_text("one", namespace="team", labels={"team": "vision"}))
    before = {name: snapshot(tmp_path / name) for name in ("out", "clusters")}
    done = cli("render")
    assert done.returncode == 2
    assert errors_of(done.stderr) == [refused(application.name, "clusters/argocd")]
    assert {name: snapshot(tmp_path / name) for name in before} == before
    job = next((tmp_path / "out" / "team").glob("job-one-*")).relative_to(tmp_path / "out").as_posix()
    add_note(tmp_path / "out" / job)
    done = cli("render")
    assert errors_of(done.stderr) == [refused(application.name, "clusters/argocd"), refused(job)]
    assert done.returncode == 2 and (tmp_path / "out" / job).read_bytes().endswith(NOTE)
    assert cli("render", "--discard-edits").returncode == 0
    assert cli("check").returncode == 0


def test_a_render_of_one_overlay_refuses_edits_in_its_folder_only(cli, tmp_path):
    """The other overlay's folder is not this run's: its edited file is neither refused nor
    touched."""
    blueprints(tmp_path / "bp", ["one"])
    for name in ("dev", "prod"):
        (tmp_path / "overlays" / name).mkdir(parents=True)
        (tmp_path / "overlays" / name / "overlay.yaml").write_text(OVERLAY.replace("namespace: dev",
                                                                                        f"namespace: {name}"))
    assert cli("render", "bp", "--overlay", "dev", "--overlay", "prod", "-o", "out").returncode == 0
    out = tmp_path / "out"
    dev, prod = "dev/dev/job-one-launcher.yaml", "prod/prod/job-one-launcher.yaml"
    written = add_note(out / dev)
    listed = index_of(out)[prod]
    add_note(out / prod)
    kept = snapshot(out)[prod]
    done, errors = render(cli, "--overlay", "dev")
    assert done.returncode == 2 and errors == [refused(dev)]
    (out / dev).write_bytes(written)  # as git checkout would put it back
    done, errors = render(cli, "--overlay", "dev")
    assert done.returncode == 0 and errors == []
    assert snapshot(out)[prod] == kept and index_of(out)[prod] == listed  # still mpigen's file, as it wrote it
    done, errors = render(cli, "--overlay", "prod")
    assert done.returncode == 2 and errors == [refused(prod)]


def test_a_hand_edited_index_owns_nothing_so_an_edited_file_is_not_mpigens(cli, out):
    """The index is not a file whose edit --discard-edits discards: an index mpigen cannot
    trust is set aside, and the files it listed are then files mpigen did not write."""
    add_note(out / EDITED)
    (out / ".mpigen-index").write_text("not an index\n")
    before = snapshot(out)
    done, errors = render(cli, "--discard-edits")
    assert done.returncode == 2 and errors == [
        f"error: out/{EDITED}: refusing to overwrite {EDITED}: mpigen did not write it (it is not in .mpigen-index); "
        "move it away or choose another output folder"]
    assert "warning: out/.mpigen-index: set aside" in done.stderr
    assert snapshot(out) == before
    shutil.move(out / EDITED, out.parent / "moved.yaml")
    assert render(cli)[0].returncode == 0


# --- issue 36: every file says it is generated before anyone edits it -------------------

@pytest.mark.parametrize("gitops", ["none", "argocd", "flux"])
def test_every_file_of_the_output_says_it_is_generated_and_where_to_change_it(tmp_path, gitops):
    """The warning comes before the edit, in the file itself: each YAML file of the output
    folder (objects, the CRD, kustomization.yaml, Argo CD Applications and Flux Kustomizations)
    opens with `---` and comments that say it is generated by mpigen and not to be edited; an
    object's name its source first (`# Source:` stays the second line, as `helm template`
    writes it and as mpigen's own diff reads it). The golden folders carry the same lines, and
    tests/acceptance/test_kustomize.py builds them with kubectl kustomize."""
    repo = tmp_path / "repo"
    (repo / "blueprints").mkdir(parents=True)
    (repo / "blueprints" / "job.yaml").write_text(blueprint_text("job-one", namespace="team"))
    (repo / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                      f"gitops: {gitops}\nwithCRD: true\ntarget: mpijob\n"
                                      + ("argocd: {repoURL: https://git.example.com/ml.git}\n" if gitops == "argocd"
                                         else "flux: {sourceRef: ml}\n" if gitops == "flux" else ""))
    done = run_mpigen("render", cwd=repo)
    assert done.returncode == 0, done.stderr
    files = sorted(p for p in repo.rglob("*.yaml") if "blueprints" not in p.parts and p.name != "mpigen.yaml")
    assert len(files) >= 3
    for path in files:
        lines = path.read_text().splitlines()
        assert lines[0] == "---", path
        head = lines[1:3] if lines[1].startswith("# Source: ") else lines[1:2]
        assert head[-1].startswith("# Generated by mpigen. DO NOT EDIT: change "), (path, head)
        assert "run `mpigen render`" in head[-1], (path, head)
