"""A blueprint's podTemplatePatch through the command line: fields the blueprint owns or
Kubernetes lacks, and numbers with a fraction, are errors at their lines."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.kubernetes_schema import validate
from tests.support.text import pos


@pytest.mark.parametrize("patch, key, message", [
    ({"worker": {"pod": {"securityContxt": {}}}}, "securityContxt",
     "'securityContxt' is not a Kubernetes pod spec field; did you mean 'securityContext'?"),
    ({"worker": {"pod": {"volumes": []}}}, "volumes", "'volumes' cannot be patched: volumes come from spec.datasets"),
    ({"worker": {"container": {"image": "x"}}}, "image", "'image' cannot be patched: use spec.image"),
    ({"launcher": {"pod": {"serviceAccountName": "x"}}}, "serviceAccountName",
     "'serviceAccountName' cannot be patched: the launcher runs as <name>-launcher"),
])
def test_fields_the_blueprint_owns_or_kubernetes_lacks_are_errors(cli, tmp_path, patch, key, message):
    text = blueprint_text("job", podTemplatePatch=patch)
    (tmp_path / "job.yaml").write_text(text)
    done = cli("validate", "job.yaml")
    line, column = pos(text, f'"{key}"', after='"podTemplatePatch"')
    assert done.returncode == 2
    assert done.stderr.startswith(f"job.yaml:{line}:{column}: error: spec.podTemplatePatch."), done.stderr
    assert message in done.stderr


@pytest.mark.parametrize("command", [("validate",), ("render", "--stdout")])
def test_a_number_with_a_fraction_is_an_error_at_its_line(cli, tmp_path, command):
    """Kubernetes' pod spec and container have no fractional field (int32, int64, or a
    quantity as int-or-string): 1.5 was an internal error (exit 3) when emitted."""
    patch = {"worker": {"pod": {"terminationGracePeriodSeconds": 1.5},
                        "container": {"livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 0.5}}}}
    text = blueprint_text("job", podTemplatePatch=patch)
    (tmp_path / "job.yaml").write_text(text)
    done = cli(*command, "job.yaml")
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    lines = done.stderr.splitlines()
    assert lines == [
        f"job.yaml:{':'.join(map(str, pos(text, '1.5')))}: error: spec.podTemplatePatch.worker.pod."
        "terminationGracePeriodSeconds: 1.5 has a fraction, which no pod or container field takes; write a whole "
        'number, or a quantity as a string ("1.5")',
        f"job.yaml:{':'.join(map(str, pos(text, '0.5')))}: error: spec.podTemplatePatch.worker.container."
        "livenessProbe.periodSeconds: 0.5 has a fraction, which no pod or container field takes; write a whole number, "
        'or a quantity as a string ("0.5")']
