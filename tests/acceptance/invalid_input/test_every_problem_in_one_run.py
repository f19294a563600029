"""Invalid input: every problem of a file is reported in one run.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import textwrap

import pytest

from tests.support.invalid_input import Case, check_case, err, param, variant, yaml_syntax


# --- every problem in one run -------------------------------------------------------------

# Three independent problems, with spec before metadata so that file order differs from
# the order of the fields in the format.
_THREE = textwrap.dedent("""\
    apiVersion: mpigen.dev/v1alpha1
    kind: MPIJobBlueprint
    spec:
      replicas: 4
      image: horovod/horovod:0.28.1
      workers: 0
      command: [python, /examples/train.py]
    metadata:
      name: Resnet
    """)
_WORKERS_0 = variant(("workers: 4", "workers: 0"))
_BAD_FRAMEWORK = variant(("framework: horovod", "framework: pytorchh"))
_DUP_AND_RANGE = variant(("  name: demo\n", "  name: demo\n  name: demo2\n"), ("workers: 4", "workers: 0"))
_TYPE_AND_LABEL = variant(("    team: vision", "    app: vision"), ("workers: 4", 'workers: "4"'))
_NO_IMAGE_NO_COMMAND = variant(("  image: horovod/horovod:0.28.1\n", ""),
                               ("  command: [python, /examples/train.py]\n", ""))

_W0 = dict(msg=["spec.workers", ">= 1"])
MULTI = [
    param("three-problems-one-file", Case({"bad.yaml": _THREE}, (
        err(_THREE, "replicas:", msg=["spec: unknown key 'replicas'"]),
        err(_THREE, "workers: 0", "0", **_W0),
        err(_THREE, "name: Resnet", "Resnet", msg=["metadata.name", "DNS-1035"]),
    ))),
    param("one-problem-in-each-of-two-files", Case({"a.yaml": _WORKERS_0, "b.yaml": _BAD_FRAMEWORK}, (
        err(_WORKERS_0, "workers: 0", "0", path="a.yaml", **_W0),
        err(_BAD_FRAMEWORK, "pytorchh", path="b.yaml", msg=["spec.framework", "'pytorchh'"]),
    ), args=("a.yaml", "b.yaml"))),
    param("syntax-error-file-and-invalid-file", Case({"a.yaml": yaml_syntax, "b.yaml": _WORKERS_0}, (
        err(yaml_syntax, "horovod/horovod: 0.28.1", ": 0.28.1", path="a.yaml", msg=["invalid YAML"]),
        err(_WORKERS_0, "workers: 0", "0", path="b.yaml", **_W0),
    ), args=("a.yaml", "b.yaml"))),
    param("missing-path-and-invalid-file", Case({"b.yaml": _WORKERS_0}, (
        ("a-missing.yaml", 0, 0, ("no such file",)),
        err(_WORKERS_0, "workers: 0", "0", path="b.yaml", **_W0),
    ), args=("a-missing.yaml", "b.yaml"))),
    param("duplicate-key-and-out-of-range", Case({"bad.yaml": _DUP_AND_RANGE}, (
        err(_DUP_AND_RANGE, "name: demo2", msg=["duplicate key 'name'"]),
        err(_DUP_AND_RANGE, "workers: 0", "0", **_W0),
    ))),
    param("wrong-type-and-reserved-label", Case({"bad.yaml": _TYPE_AND_LABEL}, (
        err(_TYPE_AND_LABEL, "app: vision", "app", msg=["metadata.labels", "'app'"]),
        err(_TYPE_AND_LABEL, 'workers: "4"', '"4"', msg=["spec.workers", "expected an integer"]),
    ))),
    param("missing-image-and-command", Case({"bad.yaml": _NO_IMAGE_NO_COMMAND}, (
        err(_NO_IMAGE_NO_COMMAND, "spec:", msg=["spec", "required key 'image'"]),
        err(_NO_IMAGE_NO_COMMAND, "spec:", msg=["spec", "required key 'command'"]),
    ))),
]


@pytest.mark.parametrize("case", MULTI)
def test_every_problem_is_reported_in_one_run(case, tmp_path, previous_render):
    check_case(case, tmp_path, previous_render)
