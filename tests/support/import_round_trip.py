"""The import round trip of the `mpigen import` tests (tests/acceptance/importing/): an
MPIJob imported, rendered and compared with what its operator makes of it, and the
positions of what import reports."""

from __future__ import annotations

import yaml

from mpigen.render.mpijob.options import MpiJobOptions
from tests.support.operator_model import comparable, controller_objects, defaulted, normal
from tests.support.rendering import by_kind
from tests.support.text import pos


V1ALPHA2, V1, V2BETA1 = "kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"


def imported(text: str, strict: bool = False):
    from mpigen.decompile.mpijob import import_document
    from mpigen.decompile.port import Given
    from mpigen.load.parser import parse
    from mpigen.render.targets import RESERVED

    (doc,) = parse(text, "mpijob.yaml")
    result = import_document(doc, strict, given=Given(reserved=RESERVED))
    return result.blueprint, doc.problems + result.diagnostics


def render_blueprint(blueprint: dict, **options) -> dict:
    """{kind: object} of the blueprint as `mpigen render` renders it (its lifecycle included)."""
    from mpigen.compile.blueprint import compile_blueprint
    from mpigen.emit.yaml import dump_object
    from mpigen.load.parser import parse
    from mpigen.render.targets import Lifecycle, Options, render_job
    from mpigen.render.targets import RESERVED
    from mpigen.validate.document import validate_document

    (doc,) = parse(dump_object(blueprint), "imported.yaml")
    model, diagnostics = validate_document(doc, RESERVED)
    assert model is not None, [str(d) for d in diagnostics]
    spec = model.spec
    lifecycle = Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished)
    return by_kind(render_job(compile_blueprint(model), Options(**{"target": "static", **options}), lifecycle))


def assert_round_trip(mpijob: dict) -> None:
    """No diagnostic, and the render of the blueprint is the operator's view of the MPIJob."""
    text = yaml.safe_dump(mpijob, sort_keys=False)
    blueprint, diagnostics = imported(text)
    assert [str(d) for d in diagnostics] == [], text
    if mpijob["apiVersion"] == V1ALPHA2:
        expected = controller_objects(mpijob)
        actual = render_blueprint(blueprint)
    else:
        expected = {"MPIJob": defaulted(mpijob)}
        actual = render_blueprint(blueprint, target="mpijob", own=MpiJobOptions(mpijob["apiVersion"]))
    assert sorted(actual) == sorted(expected)
    for kind in expected:
        assert comparable(actual[kind], expected[kind], mpijob) == normal(expected[kind]), (kind, text)


def launchers(text: str, needle: str, sub: str | None = None) -> tuple[int, int]:
    """The position of needle (of sub in it) in the launcher's part of an MPIJob text."""
    return pos(text[:text.index("    Worker:")], needle, sub)


def warned_at(text: str, *needles, strict: bool = False) -> list[str]:
    """The diagnostics of importing text, which must be exactly one warning (error with
    --strict) at each place: a needle, (needle, sub), or a (line, column); returns their
    messages."""
    blueprint, diagnostics = imported(text, strict)
    severity = "error" if strict else "warning"
    expected = sorted(n if isinstance(n, tuple) and isinstance(n[0], int) else
                      pos(text, *n) if isinstance(n, tuple) else pos(text, n) for n in needles)
    assert sorted((d.mark.line, d.mark.column) for d in diagnostics) == expected, [str(d) for d in diagnostics]
    assert all(d.severity == severity for d in diagnostics), [str(d) for d in diagnostics]
    assert (blueprint == {}) == strict
    return [d.message for d in diagnostics]


def refused_at(text: str, needle, sub=None) -> str:
    blueprint, diagnostics = imported(text)
    errors = [d for d in diagnostics if d.severity == "error"]
    assert blueprint == {} and errors, [str(d) for d in diagnostics]
    assert (errors[0].mark.line, errors[0].mark.column) == pos(text, needle, sub), [str(d) for d in diagnostics]
    return errors[0].message


def job(api: str = V1ALPHA2, launcher: str = "", worker: str = "", spec: str = "", workers: int = 2,
        launcher_container: str = "", worker_container: str = "") -> str:
    """An MPIJob as text, with extra lines at the places named (already indented)."""
    return f"""apiVersion: {api}
kind: MPIJob
metadata:
  name: train
spec:
{spec}  mpiReplicaSpecs:
    Launcher:
      replicas: 1
{launcher}      template:
        spec:
          containers:
          - name: mpi-launcher
            image: example.com/train:1
            command: [mpirun, -np, "{workers}", --allow-run-as-root, python, train.py]
{launcher_container}    Worker:
      replicas: {workers}
{worker}      template:
        spec:
          containers:
          - name: mpi-worker
            image: example.com/train:1
{worker_container}"""
