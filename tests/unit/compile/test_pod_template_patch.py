"""spec.podTemplatePatch: the escape hatch for pod spec and MPI container fields the
blueprint has no field for, applied last as JSON merge patches."""

from __future__ import annotations

import json

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.kubernetes_schema import validate
from tests.support.rendering import by_kind, render_text
from tests.support.text import pos


def test_the_patchable_fields_are_kubernetes_1_30_fields():
    from importlib.resources import files

    from mpigen.formats.pod_template_patch import CONTAINER_FIELDS, POD_FIELDS

    folder = files("kubernetes_validate") / "kubernetes-json-schema" / "v1.30.0-local"
    definitions = json.loads((folder / "_definitions.json").read_text())["$defs"]
    assert set(POD_FIELDS) == set(definitions["io.k8s.api.core.v1.PodSpec"]["properties"])
    assert set(CONTAINER_FIELDS) == set(definitions["io.k8s.api.core.v1.Container"]["properties"])


PATCH = {"launcher": {"pod": {"priorityClassName": "batch", "securityContext": {"runAsNonRoot": True}},
                      "container": {"workingDir": "/workspace"}},
         "worker": {"pod": {"shareProcessNamespace": True, "terminationGracePeriodSeconds": 30},
                    "container": {"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}}}


def test_the_patch_lands_in_the_rendered_pods_and_validates():
    objects = by_kind(render_text(blueprint_text(podTemplatePatch=PATCH)))
    launcher = objects["Job"]["spec"]["template"]["spec"]
    worker = objects["StatefulSet"]["spec"]["template"]["spec"]
    assert launcher["priorityClassName"] == "batch" and launcher["securityContext"] == {"runAsNonRoot": True}
    assert launcher["containers"][0]["workingDir"] == "/workspace"
    assert launcher["serviceAccountName"] == "job-launcher"  # the operator's still
    assert worker["shareProcessNamespace"] is True and worker["terminationGracePeriodSeconds"] == 30
    # merged into mpigen's least privilege
    assert worker["containers"][0]["securityContext"] == {"allowPrivilegeEscalation": False,
                                                          "capabilities": {"drop": ["ALL"], "add": ["IPC_LOCK"]}}
    assert worker["containers"][0]["command"] == ["sleep"]  # the operator's additions come after
    for obj in objects.values():
        validate(obj)


def test_null_removes_and_mappings_merge():
    patch = {"worker": {"container": {"securityContext": {"runAsUser": 1000, "runAsGroup": None}}}}
    objects = by_kind(render_text(blueprint_text(podTemplatePatch=patch)))
    assert objects["StatefulSet"]["spec"]["template"]["spec"]["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsUser": 1000}


@pytest.mark.parametrize("patch, key, message", [
    ({"worker": {"pod": {"securityContxt": {}}}}, "securityContxt",
     "'securityContxt' is not a Kubernetes pod spec field; did you mean 'securityContext'?"),
    ({"worker": {"pod": {"volumes": []}}}, "volumes", "'volumes' cannot be patched: volumes come from spec.datasets"),
    ({"worker": {"container": {"image": "x"}}}, "image", "'image' cannot be patched: use spec.image"),
    ({"launcher": {"pod": {"serviceAccountName": "x"}}}, "serviceAccountName",
     "'serviceAccountName' cannot be patched: the launcher runs as <name>-launcher"),
])
def test_fields_the_blueprint_owns_or_kubernetes_lacks_are_errors(tmp_path, patch, key, message):
    text = blueprint_text("job", podTemplatePatch=patch)
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen("validate", "job.yaml", cwd=tmp_path)
    line, column = pos(text, f'"{key}"', after='"podTemplatePatch"')
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: spec.podTemplatePatch."), done.stderr
    assert message in done.stderr.decode()


@pytest.mark.parametrize("command", [("validate",), ("render", "--stdout")])
def test_a_number_with_a_fraction_is_an_error_at_its_line(tmp_path, command):
    """Kubernetes' pod spec and container have no fractional field (int32, int64, or a
    quantity as int-or-string): 1.5 was an internal error (exit 3) when emitted."""
    patch = {"worker": {"pod": {"terminationGracePeriodSeconds": 1.5},
                        "container": {"livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 0.5}}}}
    text = blueprint_text("job", podTemplatePatch=patch)
    (tmp_path / "job.yaml").write_text(text)
    done = run_mpigen(*command, "job.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    lines = done.stderr.decode().splitlines()
    assert lines == [
        f"job.yaml:{':'.join(map(str, pos(text, '1.5')))}: error: spec.podTemplatePatch.worker.pod."
        "terminationGracePeriodSeconds: 1.5 has a fraction, which no pod or container field takes; write a whole "
        'number, or a quantity as a string ("1.5")',
        f"job.yaml:{':'.join(map(str, pos(text, '0.5')))}: error: spec.podTemplatePatch.worker.container."
        "livenessProbe.periodSeconds: 0.5 has a fraction, which no pod or container field takes; write a whole number, "
        'or a quantity as a string ("0.5")']
