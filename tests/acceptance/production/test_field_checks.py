"""The production checks of names and references: the names and paths mpigen uses, dataset
sources and service account, gang scheduling, podTemplatePatch against blueprint fields,
the target's and the GitOps profile's checks; each triggered at the offending key or value
and quiet on a near-identical blueprint.

The cases are files (tests/cases/field_checks/): the blueprint, the command on its first line,
and exactly what mpigen prints. Besides the check/quiet-twin pairs, three quiet cases without a
twin are patches of fields no blueprint field writes on that role (checks.POD_PATCH_FIELDS is
for "Fields of podTemplatePatch that a blueprint field also writes"): the launcher gets no
affinity from onePodPerNode and no capabilities (it is no rank host), and workers get no init
containers from download steps (the launcher runs them), so patching those is allowed.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest

from tests.support.cases import assert_prints_as_written, assert_quiet_twins_differ_in_one_place, table

# The table of checks: tests/cases/field_checks/, one case file per check that triggers (<case>.yaml)
# and one per near-identical blueprint that stays quiet (<case>.quiet.yaml), run in this process
# (tests/support/cases.py; `python -m tests.support.cases --update field_checks` rewrites their output).
CASES = table("field_checks")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_case_prints_what_its_file_says(case, tmp_path):
    """A check reports one diagnostic, of its severity, at the key or value to change, and exits
    2 with nothing on stdout for an error; its quiet twin prints no diagnostic and exits 0."""
    assert_prints_as_written(case, tmp_path)


def test_each_quiet_twin_is_its_check_with_one_change():
    assert_quiet_twins_differ_in_one_place(CASES)
