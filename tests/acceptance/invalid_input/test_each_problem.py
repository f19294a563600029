"""Invalid input, one class of problem per case: YAML syntax, duplicate and unknown keys,
wrong types, ranges, names, datasets, files that are no blueprints, missing keys, enums,
reserved names, clashes, YAML 1.1 surprises.

The cases of one text file are case files (tests/cases/invalid_input/): the file, the command
on its first line, and exactly what mpigen prints, checked in this process under validate,
render -o and render --stdout. The cases a case file cannot hold (bytes that are no UTF-8, no
file, folders, two files) run in this process from a table here; the alias bomb, whose point is
the bounded memory and time of a real process, is the one that runs the command line in
subprocesses (tests/support/invalid_input.py).

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest

from tests.support.cases import table
from tests.support.invalid_input import (ALIAS_BOMB, BINARY, BOMB_TIMEOUT, DEPLOYMENT, LATIN1, NAMESPACED, Case,
                                         check_case, check_case_file, err, param,
                                         run_modes_in_process, single)
from tests.support.text import pos

FILE_CASES = table("invalid_input")


@pytest.mark.parametrize("case", FILE_CASES, ids=[case.name for case in FILE_CASES])
def test_invalid_input_in_a_case_file_is_reported_at_its_position(case, tmp_path, previous_render):
    check_case_file(case, tmp_path, previous_render)


# In this process, the three commands one after the other (tests/support/invalid_input.run_modes_in_process).
CASES = [
    param("path-does-not-exist", Case({}, (("missing.yaml", 0, 0, ("no such file",)),), args=("missing.yaml",))),
    param("empty-folder", Case({}, (("empty", 0, 0, ("no blueprint found", "MPIJobBlueprint")),),
                               args=("empty",), dirs=("empty",))),
    param("folder-without-blueprints",
          Case({"manifests/deployment.yaml": DEPLOYMENT, "manifests/README.md": "# manifests\n"},
               (("manifests", 0, 0, ("no blueprint found", "MPIJobBlueprint")),), args=("manifests",))),
    param("binary-file", single(BINARY, b"de\x00mo", b"\x00", msg=["binary file", "NUL", "UTF-8 YAML"])),
    param("not-utf8", single(LATIN1, b"Jos\xe9", b"\xe9", msg=["not valid UTF-8", "save it as UTF-8"])),
    param("duplicate-job-in-two-files",
          Case({"a.yaml": NAMESPACED, "b.yaml": NAMESPACED},
               (err(NAMESPACED, "name: demo", "demo", path="b.yaml",
                    msg=["ml-team/demo", "already defined at a.yaml:{}:{}".format(*pos(NAMESPACED, "name: demo", "demo")),
                         "unique"]),),
               args=("a.yaml", "b.yaml"))),
]


@pytest.mark.parametrize("case", CASES)
def test_invalid_input_is_reported_at_its_position(case, tmp_path, previous_render):
    check_case(case, tmp_path, previous_render, run=run_modes_in_process)


def test_an_alias_bomb_is_refused_by_the_command_line_in_bounded_memory_and_time(tmp_path, previous_render):
    """The one case run as a user runs mpigen: three processes at once, each in 768 MiB of address
    space, done within BOMB_TIMEOUT seconds (9**9 strings once expanded)."""
    check_case(single(ALIAS_BOMB, "[*a,", "*a", path="bomb.yaml", msg=["alias", "*a"], timeout=BOMB_TIMEOUT),
               tmp_path, previous_render)
