"""No module of the pipeline keeps mutable state: what a run is asked to do reaches every call,
in the worker processes too, as a parameter (mpigen.pipeline.settings.RunSettings). A module
binds only constants (numbers, strings, tuples, frozensets) and type aliases, and no function
rebinds a module's name."""

from __future__ import annotations

import ast
from pathlib import Path

import mpigen.pipeline

MODULES = sorted(Path(mpigen.pipeline.__file__).parent.glob("*.py"))
IMMUTABLE_CALLS = {"frozenset", "tuple", "Callable", "TypeVar"}


def module_bindings(tree: ast.Module, lines: bool = False) -> list[tuple]:
    """(name, value) of each name the module binds; (name, value, line) with lines=True."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            found += [(target.id, node.value, node.lineno) for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node.value, node.lineno))
    return found if lines else [entry[:2] for entry in found]


def immutable(value: ast.expr | None) -> bool:
    if value is None or isinstance(value, (ast.Constant, ast.Subscript, ast.Attribute, ast.Name, ast.BinOp)):
        return True
    if isinstance(value, ast.Tuple):
        return all(immutable(item) for item in value.elts)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id in IMMUTABLE_CALLS
    return False


def test_a_module_of_the_pipeline_binds_only_constants():
    """One test over the pipeline's modules, naming each offender (file:line)."""
    found = []
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"mpigen/pipeline/{path.name}:{line}: binds {name}, which is mutable"
                  for name, value, line in module_bindings(tree, lines=True) if not immutable(value)]
        found += [f"mpigen/pipeline/{path.name}:{node.lineno}: {type(node).__name__.lower()} statement"
                  for node in ast.walk(tree) if isinstance(node, (ast.Global, ast.Nonlocal))]
    assert not found, "\n".join(found)


def test_a_mutable_binding_is_seen():
    """The check above can fail: the old pipeline's module global is refused."""
    tree = ast.parse("_WORK: dict = {}\nCACHE = []\nSEEN = set()\n")
    assert [name for name, value in module_bindings(tree) if not immutable(value)] == ["_WORK", "CACHE", "SEEN"]
