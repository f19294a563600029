"""A role's labels and annotations (podTemplatePatch.<role>.metadata) through the command line: a
key or value the API server or mpigen refuses is an error at its line."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.text import pos


@pytest.mark.parametrize("patch, needle, message", [
    ({"worker": {"metadata": {"labels": {"tier": "gold silver"}}}}, '"gold silver"',
     "spec.podTemplatePatch.worker.metadata.labels.tier: string 'gold silver' is not a label value"),
    ({"worker": {"metadata": {"labels": {"-tier": "gold"}}}}, '"-tier"',
     "spec.podTemplatePatch.worker.metadata.labels"),
    ({"launcher": {"metadata": {"annotations": {"mpigen.dev/run": "x"}}}}, '"mpigen.dev/run"',
     "spec.podTemplatePatch.launcher.metadata.annotations: key 'mpigen.dev/run' is written by the MPI Operator or "
     "mpigen"),
    ({"worker": {"metadata": {"labels": {"mpi_role_type": "worker"}}}}, '"mpi_role_type"',
     "spec.podTemplatePatch.worker.metadata.labels: key 'mpi_role_type' is written by the MPI Operator or mpigen"),
    ({"worker": {"metadata": {"name": "pod"}}}, '"name"', "spec.podTemplatePatch.worker.metadata: unknown key 'name'"),
])
def test_a_key_or_value_the_api_server_or_mpigen_refuses_is_an_error_at_its_line(cli, tmp_path, patch, needle, message):
    text = blueprint_text("job", podTemplatePatch=patch)
    (tmp_path / "job.yaml").write_text(text)
    done = cli("validate", "job.yaml")
    line, column = pos(text, needle, after='"podTemplatePatch"')
    assert done.returncode == 2
    assert done.stderr.startswith(f"job.yaml:{line}:{column}: error: {message}"), done.stderr
