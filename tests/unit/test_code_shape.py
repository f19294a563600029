"""The shape docs/architecture.md promises, checked on the source: each package of mpigen
opens with one sentence, each module says its concept, none is over 400 lines and no
function over 60 (the tests' modules and functions too), and imports sit at the top
(except the command table's, the optional libraries' and the targets' decompilers'). The layering itself is
import-linter's job (pyproject.toml, `make test`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mpigen"
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))
TEST_MODULES = sorted(p for p in (ROOT / "tests").rglob("*.py"))
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# Only these may be imported inside a function: the libraries of the optional extras (the
# live-cluster client and the schema validators), loaded by the commands that need them;
# the standard library's process pool (about 8 ms of every start), loaded only when a
# render is large enough to run in parallel; and tqdm, the progress bar's, loaded only when
# standard error is a terminal (mpigen/cli/progress.py), so that no run in a pipe or CI pays;
# and Grafana's dashboard builders (the dashboard extra, some 30 ms), loaded only to build an
# environment's dashboard (mpigen/monitoring/dashboard.py).
DEFERRED = ("kubernetes", "kubernetes_validate", "kubeflow_trainer_api", "jsonschema", "urllib3", "multiprocessing",
            "concurrent", "tqdm", "grafana_foundation_sdk")
COMMAND_TABLE = PACKAGE / "cli" / "main.py"
# A target's `decompiler()` (its Target.importer) imports its decompiler inside it, so that
# `mpigen import` alone loads one (mpigen.decompile.port): in a target's package, by that name.
DECOMPILER_LOADER = "decompiler"


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def assert_small(path: Path, text: str, tree: ast.Module) -> None:
    assert text.count("\n") <= MAX_MODULE_LINES, f"{name(path)}: {text.count(chr(10))} lines"
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - start + 1
            assert length <= MAX_FUNCTION_LINES, f"{name(path)}:{start}: {node.name} is {length} lines"


@pytest.mark.parametrize("path", [p for p in MODULES if p.name == "__init__.py"], ids=name)
def test_a_package_opens_with_one_sentence_and_holds_nothing_else(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc, f"{name(path)}: no docstring"
    assert doc.count(". ") == 0 and doc.endswith("."), f"{name(path)}: more than one sentence: {doc!r}"
    body = tree.body[1:]
    if path == PACKAGE / "__init__.py":  # the distribution's version, read by --version
        body = [n for n in body if not (isinstance(n, ast.Assign) and n.targets[0].id == "__version__")]
    assert not body, f"{name(path)}: a package's __init__ holds only its sentence"


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_a_module_says_its_concept_and_stays_small(path):
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert ast.get_docstring(tree), f"{name(path)}: no docstring"
    assert_small(path, text, tree)


@pytest.mark.parametrize("path", TEST_MODULES, ids=name)
def test_a_test_module_stays_small_too(path):
    text = path.read_text(encoding="utf-8")
    assert_small(path, text, ast.parse(text))


@pytest.mark.parametrize("path", [p for p in MODULES if p != COMMAND_TABLE], ids=name)
def test_imports_sit_at_the_top(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if function.name == DECOMPILER_LOADER and path.parent.parent == PACKAGE / "render":
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] in DEFERRED, (
                    f"{name(path)}:{node.lineno}: `{module}` imported inside {function.name}(); "
                    "import it at the top of the module")
