"""Names at the door (issue 15, defects 1 and 8): nothing unprintable in a path reaches the
output, an overlay folder must be able to name an output folder (not .mpigen-index, not
two that differ only in case), and a diagnostic is one line whatever the input holds.

The rules come from outside mpigen: see tests/support/kubernetes_names.py.
"""

from __future__ import annotations

import os

import pytest

from tests.support.command_line import run_mpigen
from tests.support.kubernetes_names import blueprint, folder_state, one_error, overlay_text
from tests.support.text import pos, write


# --- defect 1, source side: nothing unprintable reaches the output ------------------------

UNPRINTABLE = {"newline": "\n", "carriage-return": "\r", "escape": "\x1b", "delete": "\x7f",
               "line-separator": "\u2028", "right-to-left-override": "\u202e", "tab": "\t"}


@pytest.mark.parametrize("char", UNPRINTABLE.values(), ids=UNPRINTABLE.keys())
def test_a_blueprint_path_with_an_unprintable_character_is_refused(tmp_path, char):
    name = f"x{char}y.yaml"
    write(tmp_path / "bp" / name, blueprint())
    for command in (["render", "bp", "-o", "out"], ["render", "bp", "--stdout"], ["validate", "bp"]):
        line = one_error(run_mpigen(*command, cwd=tmp_path))
        assert line.startswith(f"error: bp/{repr(name)[1:-1]}: the path contains the character "), line
    assert not (tmp_path / "out").exists()


def test_an_undecodable_file_name_is_refused(tmp_path):
    (tmp_path / "bp").mkdir()
    with open(os.fsencode(tmp_path / "bp") + b"/x\xffy.yaml", "wb") as handle:
        handle.write(blueprint().encode())
    line = one_error(run_mpigen("render", "bp", "-o", "out", cwd=tmp_path))
    assert line.startswith(r"error: bp/x\udcffy.yaml: the path contains the character \udcff"), line
    assert not (tmp_path / "out").exists()


BAD_OVERLAY_NAMES = {
    "newline": "a\nb", "index-forgery": "x\n" + "0" * 64 + "  victim.txt", "escape": "a\x1bb",
    "the-index": ".mpigen-index", "the-kustomization": "kustomization.yaml", "dotfile": ".hidden",
    "backslash": "a\\b", "leading-dash": "-dev", "trailing-dot": "dev.", "space": "pro d", "non-ascii": "pröd",
    "too-long": "x" * 64,
}


@pytest.mark.parametrize("name", BAD_OVERLAY_NAMES.values(), ids=BAD_OVERLAY_NAMES.keys())
def test_an_overlay_folder_that_cannot_name_an_output_folder_is_refused(tmp_path, name):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    write(tmp_path / "out" / "victim.txt", "the user's\n")
    assert run_mpigen("render", "-o", "out", cwd=tmp_path).returncode == 0  # the output folder's previous state
    before = folder_state(tmp_path / "out")
    line = one_error(run_mpigen("render", "--overlay", f"overlays/{name}", "-o", "out", cwd=tmp_path))
    shown = name if name.isprintable() else repr(name)[1:-1]
    assert line.startswith(f"error: overlays/{shown}: "), line
    assert folder_state(tmp_path / "out") == before


def test_an_overlay_named_mpigen_index_in_mpigen_yaml_is_exit_2(tmp_path):
    """The case of defect 8: the whole repository, as mpigen.yaml lists it."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / ".mpigen-index" / "overlay.yaml", overlay_text())
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
                                    "overlays: [overlays/.mpigen-index]\noutput: out\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line == ("error: overlays/.mpigen-index: '.mpigen-index' is a file of the output folder; rename the "
                    "overlay folder")
    assert not (tmp_path / "out").exists()


def test_overlay_names_that_are_label_values_are_rendered(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    for name in ("Prod_EU", "prod.eu", "x" * 63):
        write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    done = run_mpigen("render", "--overlay", "Prod_EU", "--overlay", "prod.eu", "--overlay", "x" * 63, "-o", "out",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".mpigen-index", "Prod_EU", "prod.eu", "x" * 63]


def test_overlays_that_differ_only_in_case_are_refused(tmp_path):
    """macOS and Windows would write both into one output folder."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / "prod" / "overlay.yaml", overlay_text())
    text = write(tmp_path / "overlays" / "Prod" / "overlay.yaml", overlay_text())
    line = one_error(run_mpigen("render", "--overlay", "prod", "--overlay", "Prod", "--stdout", cwd=tmp_path))
    line_no, column = pos(text, "apiVersion")
    assert line.startswith(f"overlays/Prod/overlay.yaml:{line_no}:{column}: error: overlays 'prod' "
                           "(overlays/prod/overlay.yaml) and 'Prod' differ only in case"), line


def test_a_diagnostic_is_one_line_whatever_the_input_holds(tmp_path):
    """A path in a message is escaped as well, so a line of stderr cannot be forged."""
    write(tmp_path / "bp" / "job.yaml", blueprint())
    line = one_error(run_mpigen("render", "bp", "--stdout", "--overlay", "nope\nbp/job.yaml:1:1: error: forged",
                                cwd=tmp_path))
    assert line.startswith(r"error: nope\nbp/job.yaml:1:1: error: forged: no such overlay"), line
