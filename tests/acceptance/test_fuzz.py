"""Fuzzing (issue 7, point 4). Random edits of the example blueprints, and random YAML
texts (random characters, examples cut short or spliced), either render or fail with exit
2 and positioned diagnostics, never any other outcome. What renders passes the Kubernetes
schema, is byte-identical on a second run, and `kubectl kustomize` builds it; what does not
writes nothing. Sized to keep CI short (a few seconds)."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.properties import examples

from mpigen.errors import InputError
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import render_text

EXAMPLES = [yaml.safe_load(p.read_text()) for p in sorted(BLUEPRINTS.glob("*.yaml"))]
leaf = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**6), st.text(max_size=20),
                 st.sampled_from(["", "-", "0755", "on", "nvidia.com/gpu", "/etc/mpi", "mpi-job-config", "a" * 70]))
value = st.recursive(leaf, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=8), c,
                                                                                          max_size=3)), max_leaves=8)


def paths(node, here=()):
    yield here
    if isinstance(node, dict):
        for key, child in node.items():
            yield from paths(child, here + (key,))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from paths(child, here + (i,))


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(EXAMPLES)))
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from([p for p in paths(doc) if p]))
        parent = doc
        for part in where[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[where[-1]] = draw(value)
        elif action == "delete" and isinstance(parent, dict):
            del parent[where[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(value)
    return doc


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_blueprints_render_or_fail_with_positions(doc):
    import kubernetes_validate

    text = json.dumps(doc, indent=2)
    try:
        objects = render_text(text, "fuzz.yaml")
    except InputError as exc:
        assert exc.diagnostics
        for diagnostic in exc.diagnostics:
            assert diagnostic.mark.path == "fuzz.yaml"
            assert 1 <= diagnostic.mark.line <= text.count("\n") + 1
        return
    for obj in objects:
        if obj["kind"] != "PodGroup":  # a custom resource: checked against reference 2.7/4.8 in test_production
            kubernetes_validate.validate(obj, "1.30.0", strict=True)


# --- random YAML texts (issue 7, point 4) ---------------------------------------------------

DIAGNOSTIC = r"^{path}:\d+:\d+: (error|warning): \S"
YAML_ALPHABET = st.sampled_from(list("abcz019 :-[]{},&*!|>'\"#%@?\t\n") + ["\n  ", ": ", "- ", "---\n", "\\u00e9",
                                                                          "apiVersion: mpigen.dev/v1alpha1\n",
                                                                          "kind: MPIJobBlueprint\n", "spec:\n  "])
EXAMPLE_TEXTS = [p.read_text() for p in sorted(BLUEPRINTS.glob("*.yaml"))]


@st.composite
def yaml_texts(draw):
    """Random text in YAML's alphabet, or an example cut short or with a random splice."""
    kind = draw(st.sampled_from(["random", "cut", "splice"]))
    if kind == "random":
        return "".join(draw(st.lists(YAML_ALPHABET, max_size=80)))
    text = draw(st.sampled_from(EXAMPLE_TEXTS))
    at = draw(st.integers(0, len(text)))
    if kind == "cut":
        return text[:at]
    return text[:at] + "".join(draw(st.lists(YAML_ALPHABET, min_size=1, max_size=6))) + text[at:]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=yaml_texts())
def test_random_yaml_is_rendered_or_refused_with_positions(text, scratch, mpigen_in_process):
    """Any text: exit 0 and output, or exit 2 with only positioned diagnostics on stderr,
    nothing on stdout and nothing written; never a crash (exit 3) or a traceback."""
    path = scratch / "random.yaml"
    path.write_text(text, encoding="utf-8")
    done = mpigen_in_process("render", "--stdout", str(path))
    if done.returncode == 0:
        assert done.stdout.startswith(b"---\n")
        return
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    for line in done.stderr.splitlines():
        assert re.match(DIAGNOSTIC.format(path=re.escape(path.as_posix())), line) or \
            line.startswith(f"error: {path.as_posix()}: ") or re.match(r"^mpigen: ", line), line


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(doc=st.one_of(st.sampled_from(EXAMPLES), mutated()))
def test_rendered_mutations_are_deterministic_and_kustomize_builds_them(doc, scratch, mpigen_in_process, kubectl):
    """What renders is byte-identical on a second run and a valid kustomize root; what does
    not leaves no folder behind."""
    path = scratch / "mutated.yaml"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    first, second = scratch / "first", scratch / "second"
    for folder in (first, second):
        shutil.rmtree(folder, ignore_errors=True)
    done = mpigen_in_process("render", str(path), "-o", str(first))
    if done.returncode != 0:
        assert done.returncode == 2 and not first.exists(), done.stderr
        return
    assert mpigen_in_process("render", str(path), "-o", str(second)).returncode == 0
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file())
    assert all((first / f).read_bytes() == (second / f).read_bytes() for f in files)
    built = subprocess.run([kubectl, "kustomize", str(first)], capture_output=True, timeout=60)
    assert built.returncode == 0, built.stderr
