"""The shape docs/architecture.md promises, checked on the source: each package of mpigen
opens with one sentence, each module says its concept, none is over 400 lines and no
function over 60 (the tests' modules and functions too), imports sit at the top
(except the command table's, the optional libraries' and the targets' decompilers'), and a
module of pydantic models does not postpone its annotations (mpigen/formats/base.py). The layering
itself is import-linter's job (pyproject.toml, `make test`). Each rule is one test that names
every offender (file:line), not one case per file."""

from __future__ import annotations

import ast
from pathlib import Path

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
# environment's dashboard (mpigen/monitoring/dashboard.py); and difflib (some 10 ms), loaded
# only to suggest a name for a mistake (mpigen.errors.close_matches) or to show check's diff;
# and ctypes (syncfs), loaded only to flush a new output folder (mpigen.output.files.flush).
DEFERRED = ("kubernetes", "kubernetes_validate", "kubeflow_trainer_api", "jsonschema", "urllib3", "multiprocessing",
            "concurrent", "tqdm", "grafana_foundation_sdk", "difflib", "ctypes")
COMMAND_TABLE = PACKAGE / "cli" / "main.py"
# A target's `decompiler()` (its Target.importer) imports its decompiler inside it, so that
# `mpigen import` alone loads one (mpigen.decompile.port): in a target's package, by that name.
DECOMPILER_LOADER = "decompiler"


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def parsed(path: Path) -> tuple[str, ast.Module]:
    text = path.read_text(encoding="utf-8")
    return text, ast.parse(text)


def too_large(path: Path, text: str, tree: ast.Module) -> list[str]:
    found = []
    if text.count("\n") > MAX_MODULE_LINES:
        found.append(f"{name(path)}:1: {text.count(chr(10))} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - start + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{name(path)}:{start}: {node.name} is {length} lines (at most {MAX_FUNCTION_LINES})")
    return found


def package_door_faults(path: Path, tree: ast.Module) -> list[str]:
    doc = ast.get_docstring(tree)
    if not doc:
        return [f"{name(path)}:1: no docstring"]
    found = []
    if doc.count(". ") != 0 or not doc.endswith("."):
        found.append(f"{name(path)}:1: more than one sentence: {doc!r}")
    body = tree.body[1:]
    if path == PACKAGE / "__init__.py":  # the distribution's version, read by --version
        body = [n for n in body if not (isinstance(n, ast.Assign) and n.targets[0].id == "__version__")]
    if body:
        found.append(f"{name(path)}:{body[0].lineno}: a package's __init__ holds only its sentence")
    return found


def imports_inside_functions(path: Path, tree: ast.Module) -> list[str]:
    found = []
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
            found += [f"{name(path)}:{node.lineno}: `{module}` imported inside {function.name}(); "
                      "import it at the top of the module" for module in modules if module.split(".")[0] not in DEFERRED]
    return found


def report(found: list[str]) -> str:
    return f"{len(found)} offender(s):\n" + "\n".join(found)


def test_a_package_opens_with_one_sentence_and_holds_nothing_else():
    found = [f for p in MODULES if p.name == "__init__.py" for f in package_door_faults(p, parsed(p)[1])]
    assert not found, report(found)


def test_a_module_says_its_concept_and_stays_small():
    found = []
    for path in MODULES:
        text, tree = parsed(path)
        if not ast.get_docstring(tree):
            found.append(f"{name(path)}:1: no docstring")
        found += too_large(path, text, tree)
    assert not found, report(found)


def test_a_test_module_stays_small_too():
    found = [f for p in TEST_MODULES for f in too_large(p, *parsed(p))]
    assert not found, report(found)


def postponed_model_annotations(path: Path, tree: ast.Module) -> list[str]:
    """`from __future__ import annotations` in a module that defines models (a class whose base
    is named ...Model): pydantic would compile and evaluate each field's annotation at every start."""
    models = any(isinstance(node, ast.ClassDef) and any(isinstance(base, ast.Name) and base.id.endswith("Model")
                                                        for base in node.bases) for node in tree.body)
    return [f"{name(path)}:{node.lineno}: a module of models postpones its annotations; import the names "
            "they use instead" for node in tree.body if models and isinstance(node, ast.ImportFrom)
            and node.module == "__future__" and any(alias.name == "annotations" for alias in node.names)]


def test_models_have_their_annotations_evaluated_by_their_bytecode():
    found = [f for p in MODULES for f in postponed_model_annotations(p, parsed(p)[1])]
    assert not found, report(found)


def test_imports_sit_at_the_top():
    found = [f for p in MODULES if p != COMMAND_TABLE for f in imports_inside_functions(p, parsed(p)[1])]
    assert not found, report(found)


def test_the_checks_name_each_offender_at_its_line(tmp_path):
    """The rules above can fail, and say where: a long function, a second sentence, code in an
    __init__, an import inside a function, a module of models that postpones its annotations."""
    long = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    door = "'''One. Two.'''\nX = 1\n"
    inner = "def f():\n    import json\n    import kubernetes\n"
    path = PACKAGE / "example.py"
    assert too_large(path, long, ast.parse(long)) == [f"mpigen/example.py:1: f is {MAX_FUNCTION_LINES + 1} lines "
                                                      f"(at most {MAX_FUNCTION_LINES})"]
    assert [f.split(": ", 1)[0] for f in package_door_faults(path, ast.parse(door))] == ["mpigen/example.py:1",
                                                                                         "mpigen/example.py:2"]
    assert imports_inside_functions(path, ast.parse(inner)) == [
        "mpigen/example.py:2: `json` imported inside f(); import it at the top of the module"]
    models = "'Models.'\nfrom __future__ import annotations\nclass Job(Model):\n    name: str\n"
    assert [f.split(": ", 1)[0] for f in postponed_model_annotations(path, ast.parse(models))] == [
        "mpigen/example.py:2"]
    assert postponed_model_annotations(path, ast.parse(models.replace("(Model)", "(Base)"))) == []
