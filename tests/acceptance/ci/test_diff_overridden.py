"""`mpigen diff` says when an overlay makes a blueprint edit moot: the edit changes no object
in that environment, so the object diff alone would not mention it.

The repository is the examples' (tests/support/ci_repository): dev's overlay sets every job
to 1 worker, prod's gives resnet50-imagenet 16 workers and rewrites the horovod/horovod image
to the internal mirror by digest; intel-pi runs the blueprint's 2 workers in prod. Each
expected position is found in the overlay file itself.
"""

from __future__ import annotations

import json

from tests.support.ci_repository import IMAGE, RESNET, WORKERS, commit_all, edit, git, mpigen

RESNET_WORKERS = (RESNET, "  workers: 4\n", "  workers: 8\n")
RESNET_IMAGE = (RESNET, "image: horovod/horovod:0.28.1", "image: horovod/horovod:0.29.0")


def position(ci_repository, path: str, text: str) -> str:
    """PATH:LINE:COLUMN of the first `text` in the file (the column of its value after `: `)."""
    lines = (ci_repository / path).read_text(encoding="utf-8").splitlines()
    line = next(i for i, content in enumerate(lines) if text in content)
    key, _, _ = lines[line].partition(text)
    return f"{path}:{line + 1}:{len(key) + text.index(':') + 3}"


def test_a_blueprint_edit_that_both_overlays_override_is_no_change(ci_repository):
    """The issue's case: workers 4 -> 8 in the blueprint, prod's overlay sets 16 (dev's 1)."""
    edit(ci_repository, RESNET_WORKERS)
    run = mpigen(ci_repository, "diff", "--base", "main")
    dev = position(ci_repository, "overlays/dev/overlay.yaml", "workers: 1")
    prod = position(ci_repository, "overlays/prod/overlay.yaml", "workers: 16")
    assert (run.code, run.err) == (0, "")
    assert run.out == ("no changes\n"
                       f"dev: workers 4 -> 8 in {RESNET} is overridden by {dev} (1): no change\n"
                       f"prod: workers 4 -> 8 in {RESNET} is overridden by {prod} (16): no change\n")
    markdown = mpigen(ci_repository, "diff", "--base", "main", "--format", "markdown").out
    assert f"- prod: workers 4 → 8 in {RESNET} is overridden by {prod} (16): no change\n" in markdown
    data = json.loads(mpigen(ci_repository, "diff", "--base", "main", "--format", "json").out)
    assert data["differs"] is False and data["jobs"] == []
    assert data["overridden"][1] == {"environment": "prod", "blueprint": RESNET, "field": "workers", "old": 4,
                                     "new": 8, "overlay": prod, "value": 16}


def test_the_environment_the_edit_reaches_shows_it_and_the_other_says_why_not(ci_repository):
    edit(ci_repository, WORKERS)  # intel-pi 2 -> 3: prod runs it, dev's overlay sets 1
    run = mpigen(ci_repository, "diff", "--base", "main")
    dev = position(ci_repository, "overlays/dev/overlay.yaml", "workers: 1")
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    assert lines[0] == "job hpc/intel-pi (env prod)" and "  workers 2 -> 3" in lines
    assert "(env dev)" not in run.out
    notes = lines.index("") + 1  # after the job's block, the notes, then the overview
    assert lines[notes:notes + 2] == [
        f"dev: workers 2 -> 3 in blueprints/intel-pi.yaml is overridden by {dev} (1): no change", ""]
    assert lines[notes + 2] == "Jobs changed: 1 (prod: 1)"
    # Committed on a branch and compared as two commits, from main's checkout: the same
    # report, the overlays read from the head commit.
    git(ci_repository, "checkout", "-q", "-b", "feature")
    assert mpigen(ci_repository, "render").code == 0
    commit_all(ci_repository, "intel-pi: 3 workers")
    git(ci_repository, "checkout", "-q", "main")
    two = mpigen(ci_repository, "diff", "main", "feature")
    assert two.out.splitlines()[:-1] == lines[:-1]


def test_an_image_the_prod_overlay_rewrites_is_moot_there_only(ci_repository):
    """prod pins horovod/horovod to a digest of the mirror (its images[0]), so a new tag in
    the blueprint changes dev's pods only."""
    edit(ci_repository, RESNET_IMAGE)
    run = mpigen(ci_repository, "diff", "--base", "main")
    assert run.code == 1, run.err
    assert "(env dev)" in run.out and "(env prod)" not in run.out
    lines = (ci_repository / "overlays/prod/overlay.yaml").read_text(encoding="utf-8").splitlines()
    images = next(i for i, line in enumerate(lines) if line.startswith("images:")) + 2  # its first item's line
    note = next(line for line in run.out.splitlines() if line.startswith("prod: "))
    assert note.startswith(f'prod: image "horovod/horovod:0.28.1" -> "horovod/horovod:0.29.0" in {RESNET} is '
                           f"overridden by overlays/prod/overlay.yaml:{images}:")
    # A long value is cut as every value of the report is; the JSON report has it whole.
    assert note.endswith('("registry.example.com/mirror/horovod/horovod@sha256:4c2ad2e3d3b8e1d2a5a1b0f0c...): '
                         "no change")
    data = json.loads(mpigen(ci_repository, "diff", "--base", "main", "--format", "json").out)
    assert [(n["environment"], n["field"], n["value"]) for n in data["overridden"]] == [
        ("prod", "image", "registry.example.com/mirror/horovod/horovod@sha256:"
                          "4c2ad2e3d3b8e1d2a5a1b0f0c6e9f1e2d3c4b5a6978877665544332211000aab")]


def test_an_edit_an_overlay_does_not_touch_has_no_note(ci_repository):
    edit(ci_repository, IMAGE)  # intel-pi's image: no overlay rewrites mpioperator/mpi-pi
    run = mpigen(ci_repository, "diff", "--base", "main")
    assert run.code == 1, run.err
    assert "overridden" not in run.out
    assert json.loads(mpigen(ci_repository, "diff", "--base", "main", "--format", "json").out)["overridden"] == []
