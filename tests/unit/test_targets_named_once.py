"""A target is one package plus one line in the table: no module outside
mpigen/render/<target>/ and the table (mpigen/render/targets.py) names a target, imports its
package, or names a kind only that target renders.

The facts come from outside the modules under test: the targets are the table's keys, and the
kinds each renders are read from the reviewed output in golden/ (each case's stream, with
the --target it was rendered with, tests/support/golden.py), with the kinds each target
declares (a kind no example renders). A kind only one target renders
is a custom resource (an API group that is not Kubernetes' own) that no other target's
output holds.

Two stages may name one of them, for what it is to them rather than as a target's: compile
and its inverse (decompile, and the import command) name the MPIJob, the compiled model every target is given (the MPI Operator's
v1alpha2 API) and what `mpigen import` turns back into a blueprint; formats holds the
published file formats, whose field names and enumerations the schemas fix (a blueprint's
spec.runtime.kind is TrainingRuntime or ClusterTrainingRuntime), and which, below every
target, cannot take them from the table. And status (`mpigen status`) reads what each target's
*controllers* write of its objects (the JobSet, Trainer, MPI Operator and Job controllers'
conditions, the child objects they make), which is theirs, not the target's: it keeps a table
keyed by the targets' names, and tests/unit/status/test_every_target_read.py fails when a target
of the table has no reading there, so that a new target cannot be silently left unread.

Prose is free to say which target does what (docstrings, comments, a field's description or
examples): the test reads the code's names, imports and string values."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import yaml

from mpigen.render.targets import TARGETS
from tests.support.golden import CASES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mpigen"
TABLE = PACKAGE / "render" / "targets.py"
COMPILED_KIND = "MPIJob"
MODEL_STAGES = (PACKAGE / "compile", PACKAGE / "decompile", PACKAGE / "importer")
FORMATS = PACKAGE / "formats"
CONTROLLER_READINGS = PACKAGE / "status"  # what the controllers write, per target (see above)


def _builtin(api_version: str) -> bool:
    """Kubernetes' own API groups: the core group, a bare group (apps, batch) or one under .k8s.io."""
    group = api_version.rpartition("/")[0]
    return "." not in group or group.endswith(".k8s.io")


@cache
def kinds_by_target() -> dict[str, set[str]]:
    """The custom resource kinds in each target's golden output, and those it declares
    (Target.kinds: a kind no example renders, such as a ClusterTrainingRuntime)."""
    found: dict[str, set[str]] = defaultdict(set)
    for name, target in TARGETS.items():
        found[name] |= {kind.kind for kind in target.kinds if "." in kind.group and not kind.group.endswith(".k8s.io")}
    for case, args in CASES.items():
        target = args[args.index("--target") + 1] if "--target" in args else next(iter(TARGETS))
        stream = ROOT / "golden" / f"{case}.yaml"
        for doc in yaml.load_all(stream.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader):
            if isinstance(doc, dict) and not _builtin(doc.get("apiVersion", "")):
                found[target].add(doc["kind"])
    return found


@cache
def owned_kinds() -> dict[str, str]:
    """Kind -> the one target that renders it."""
    owners: dict[str, set[str]] = defaultdict(set)
    for target, kinds in kinds_by_target().items():
        for kind in kinds:
            owners[kind].add(target)
    return {kind: next(iter(targets)) for kind, targets in owners.items() if len(targets) == 1}


def _outside_targets(path: Path) -> bool:
    rel = path.relative_to(PACKAGE).parts
    return path != TABLE and CONTROLLER_READINGS not in path.parents \
        and not (len(rel) > 2 and rel[0] == "render" and rel[1] in TARGETS)


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if _outside_targets(p))


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of the module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword) and node.arg:
        return [node.arg]
    if isinstance(node, ast.alias):
        return [(node.asname or node.name).rsplit(".", 1)[-1]]
    return []


def _words(identifier: str) -> set[str]:
    """An identifier's words, lower case: snake_case and CamelCase both split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", identifier)
    return {word.lower() for word in spaced.split("_") if word}


def _format_values(tree: ast.Module) -> tuple[set[int], set[str]]:
    """A file format's own words: the constants of its enumerations (Literal[...]) and examples,
    and its models' field names."""
    constants, fields = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            constants |= {id(n) for n in ast.walk(node.slice) if isinstance(n, ast.Constant)}
        if isinstance(node, ast.keyword) and node.arg in ("examples", "description"):
            constants |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
        if isinstance(node, ast.ClassDef):
            fields |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    return constants, fields


def namings(path: Path, owned: dict[str, str]) -> list[str]:
    """Where the module names a target, imports its package or names a kind only it renders."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings, out = _docstrings(tree), []
    if any(stage in path.parents for stage in MODEL_STAGES):
        owned = {kind: target for kind, target in owned.items() if kind != COMPILED_KIND}
    kind_words = {kind.lower(): target for kind, target in owned.items()}
    target_words = set(TARGETS) - ({COMPILED_KIND.lower()} if COMPILED_KIND not in owned else set())
    format_constants, format_fields = _format_values(tree) if FORMATS in path.parents else (set(), set())
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:2] == ["mpigen", "render"] and len(parts) > 2 and parts[2] in TARGETS:
                out.append(f"{line}: imports {node.module}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if (node.value in TARGETS or owned.get(node.value)) and id(node) not in format_constants:
                out.append(f"{line}: the string {node.value!r}")
        for identifier in _identifiers(node):
            if identifier in format_fields or identifier in (COMPILED_KIND, COMPILED_KIND + "Spec"):
                continue  # a format's field; the compiled model's classes
            words = _words(identifier)
            joined = identifier.lower().replace("_", "")
            named = (words & target_words) | {kind for kind in kind_words if kind in joined}
            if named:
                out.append(f"{line}: the name {identifier}")
    return sorted(set(out), key=lambda entry: int(entry.split(":")[0]))


def test_the_kinds_each_target_owns_are_found():
    """The golden output shows every target, and a kind of its own for each that has one."""
    found = kinds_by_target()
    assert set(found) >= {"mpijob", "jobset", "trainjob"}
    assert owned_kinds()  # the check below checks something


def test_no_module_outside_a_target_names_it():
    """One test over every module outside the targets, naming each offender (file:line)."""
    owned = owned_kinds()
    found = [f"{path.relative_to(ROOT)}:{entry}" for path in MODULES for entry in namings(path, owned)]
    assert not found, "a module outside a target names a target or one of its kinds:\n  " + "\n  ".join(found)


def test_the_check_finds_a_planted_naming(tmp_path):
    """The check itself: a module that imports a target, compares with its name and names its kind fails."""
    planted = tmp_path / "planted.py"
    target = next(iter(TARGETS))
    kind = next(iter(owned_kinds()))
    planted.write_text(f'"""A module."""\nfrom mpigen.render.{target}.target import X\n'
                       f'if options.target == "{target}":\n    pass\n'
                       f'def is_{kind.lower()}(obj):\n    return obj["kind"] == "{kind}"\n', encoding="utf-8")
    found = namings(planted, owned_kinds())
    assert len(found) >= 4, found
