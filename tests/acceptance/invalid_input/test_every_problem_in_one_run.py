"""Invalid input: every problem of a file is reported in one run.

For each class the real CLI runs in a subprocess, as `validate PATH`, `render PATH -o out`
and `render PATH --stdout`, and each run must:
- exit with code 2;
- print `PATH:LINE:COLUMN: error: MESSAGE` on stderr for every problem (and no other
  error), with the path as given on the command line, the 1-based line and column of the
  offending key (unknown/duplicate/bad map keys), value (wrong values) or parent key
  (missing keys), and a message that names the field and, where sensible, the fix;
- print no Python traceback and nothing on stdout;
- stay within MEMORY_LIMIT of address space (RLIMIT_AS), so an alias bomb, deep nesting or
  a huge file is refused in bounded memory, and within a hang guard of RUN_TIMEOUT
  (no timing assertion: the project measures speed in bench/, not in tests);
- leave the working folder byte for byte as it was, in particular the -o folder, which
  holds a README.md and a previous render of blueprints/tensorflow-mnist.yaml.

Expected positions are computed from the YAML text of each case (see `pos`), never typed
in by hand. The three commands of one case run concurrently so that the file stays fast
on a 2-core CI machine.
"""

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
