"""Test modules never import each other: what tests share lives in tests/support/ (or is a
fixture of a conftest.py, which pytest hands to the tests itself), so that a test module can be
read, moved or deleted alone. Checked on the source: no module of tests/ imports a test module
(test_*.py) or a conftest.py, at its top or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

TESTS = ROOT / "tests"


def is_test_module(module: str) -> bool:
    """Whether the dotted name is a test module or a conftest of this checkout's tests/."""
    parts = module.split(".")
    if parts[0] != "tests":
        return False
    path = ROOT.joinpath(*parts[:-1], parts[-1] + ".py")
    return path.is_file() and (path.name.startswith("test_") or path.name == "conftest.py")


def imported_modules(tree: ast.Module, package: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every module the code may import, `from M import n` giving both M
    and M.n (n may be a module); relative imports resolved against `package`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def imports_of_test_modules(text: str, package: str = "tests.acceptance.cache") -> list[str]:
    return [module for _, module in imported_modules(ast.parse(text), package) if is_test_module(module)]


def test_no_test_module_imports_another_or_a_conftest():
    """One test over every module of tests/, naming each offending import (file:line)."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        package = ".".join(path.relative_to(ROOT).parent.parts)
        found += [f"{path.relative_to(ROOT)}:{line}: imports {module}"
                  for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")), package)
                  if is_test_module(module)]
    assert not found, "move what they share into tests/support/:\n" + "\n".join(found)


@pytest.mark.parametrize("text, found", [
    ("from tests.conftest import ROOT\n", ["tests.conftest"]),
    ("def f():\n    from tests.system.install.conftest import WHEEL\n", ["tests.system.install.conftest"]),
    ("from tests.acceptance.cache import test_same_output\n", ["tests.acceptance.cache.test_same_output"]),
    ("import tests.unit.test_code_shape\n", ["tests.unit.test_code_shape"]),
    ("from .test_safe_cache import entries\n", ["tests.acceptance.cache.test_safe_cache"]),
    ("from . import conftest\n", []),  # tests/acceptance/cache/ has no conftest.py
    ("from tests.support.paths import ROOT\nimport yaml\n", []),
])
def test_the_check_finds_every_way_of_importing_a_test_module(text, found):
    assert imports_of_test_modules(text) == found
