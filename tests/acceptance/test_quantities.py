"""Quantities (issue 15, defect 6), as apimachinery pkg/api/resource/quantity.go reads them
("no quantity may represent a number greater than 2^63-1"; the exponent is read by
strconv.ParseInt): what Kubernetes cannot hold is refused at its value, never a crash.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.support.properties import examples

from tests.support.command_line import run_mpigen
from tests.support.kubernetes_names import blueprint, one_error
from tests.support.text import pos, write


# --- defect 6: quantities ----------------------------------------------------------------

def _resources_blueprint(resource: str, value: str, **spec) -> str:
    return blueprint(resources={"worker": {resource: value}}, **spec)


@pytest.mark.parametrize("resource, value, spec", [
    ("memory", "1e99999999999", {"gpusPerWorker": 1}),  # hung: 10 ** 99999999999
    ("cpu", "1e5000", {"scheduling": {"gang": {"scheduler": "volcano"}}}),  # exit 3
    ("cpu", "9223372036854775808", {}),  # 2^63
    ("memory", "8Ei", {}),  # 2^63
    ("cpu", "1e1.5", {}),  # the parser reads the exponent as an integer
    ("cpu", "1e99999999999999999999", {}),  # not even a 64-bit exponent
])
def test_an_out_of_range_quantity_is_refused_at_its_value(tmp_path, resource, value, spec):
    text = write(tmp_path / "bp" / "job.yaml", _resources_blueprint(resource, value, **spec))
    line = one_error(run_mpigen("render", "bp", "--stdout", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.resources.worker.%s: " % (*pos(text, f'"{value}"'),
                                                                                       resource)), line


@pytest.mark.parametrize("value, spelling", [
    # GB names both readings, the binary first: nearly everyone who writes 1GB of memory means 1Gi.
    ("1GB", "'1Gi' (1 x 2^30 bytes) or '1G' (1 x 10^9 bytes)"), ("1gi", "'1Gi'"), ("64 GiB", "'64Gi'")])
def test_a_size_written_as_people_write_it_suggests_the_kubernetes_spelling(tmp_path, value, spelling):
    text = write(tmp_path / "bp" / "job.yaml", _resources_blueprint("memory", value))
    line = one_error(run_mpigen("validate", "bp", cwd=tmp_path))
    assert line == ("bp/job.yaml:%d:%d: error: spec.resources.worker.memory: string %r is not a Kubernetes quantity "
                    "such as 16, 500m, 64Gi or 1.5; did you mean %s?" % (*pos(text, f'"{value}"'), value, spelling))


@pytest.mark.parametrize("value", ["9223372036854775807", "7Ei", "1e-99999999999", "0e99999999999", "0.1n"])
def test_quantities_kubernetes_holds_are_rendered(tmp_path, value):
    write(tmp_path / "bp" / "job.yaml", _resources_blueprint("cpu", value))
    done = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_podgroup_sum_beyond_the_largest_quantity_is_refused(tmp_path):
    """Each worker's cpu is a quantity; the PodGroup's minResources, their sum, would not be."""
    text = write(tmp_path / "bp" / "job.yaml", _resources_blueprint(
        "cpu", "5e18", scheduling={"gang": {"scheduler": "scheduler-plugins"}}))
    line = one_error(run_mpigen("render", "bp", "--stdout", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.resources.worker.cpu: the PodGroup's minResources "
                           % pos(text, '"5e18"')), line


_NUMBER = st.from_regex(r"\A([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})\Z")
_QUANTITIES = st.one_of(
    st.from_regex(r"\A(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?\Z"),
    st.builds(lambda n, e, sign: f"{n}e{sign}{e}", _NUMBER, st.integers(0, 10**30), st.sampled_from(["", "+", "-"])),
    st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), max_size=70),
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_QUANTITIES)
def test_no_quantity_string_escapes_a_positioned_answer(value):
    """Every string is a quantity or an error at the value's line and column, and parsing
    it never computes a number Kubernetes could not hold: the work is bounded by the
    exponent check, not by a clock. A value that is accepted is what Kubernetes holds: a
    whole number of nanos, at most 2^63-1."""
    from fractions import Fraction

    from mpigen.load.parser import parse
    from mpigen.kube.quantity import parse as quantity
    from mpigen.render.targets import RESERVED
    from mpigen.validate.document import validate_document

    try:  # the parser itself: a value, or ValueError (never another exception)
        quantity(value)
    except ValueError:
        pass
    text = _resources_blueprint("memory", value)
    doc, = parse(text, "job.yaml")
    result, diagnostics = validate_document(doc, RESERVED)
    errors = [d for d in diagnostics if d.severity == "error"]
    if result is not None:
        held = quantity(result.spec.resources.worker["memory"])
        assert (held * 10**9).denominator == 1 and Fraction(0) <= held <= 2**63 - 1
        return
    where = pos(text, json.dumps(value), after='"memory": ')
    assert errors and all((e.mark.line, e.mark.column) == where for e in errors), (value, errors)
