"""blueprints/ rendered now must equal the committed, reviewed output under golden/.
On a difference: review it, then `make golden`."""

from __future__ import annotations

import pytest

from tests.golden import CASES, GOLDEN, folder_bytes, render_folder, render_stream


@pytest.mark.parametrize("case", sorted(CASES))
def test_stream_matches_golden(case):
    assert render_stream(case) == (GOLDEN / f"{case}.yaml").read_bytes(), "stale golden output: review, then make golden"


@pytest.mark.parametrize("case", sorted(CASES))
def test_folder_matches_golden(case, tmp_path):
    render_folder(case, tmp_path / "out")
    assert folder_bytes(tmp_path / "out") == folder_bytes(GOLDEN / case), "stale golden output: review, then make golden"


def test_every_example_is_in_the_golden_output():
    from tests.conftest import BLUEPRINTS

    stream = (GOLDEN / "static.yaml").read_text()
    for path in sorted(BLUEPRINTS.glob("*.yaml")):
        assert f"# Source: blueprints/{path.name}\n" in stream
