"""docs/validation.md, the table of the rules that can refuse or break mpigen's objects, kept in
step with the code: every check a row names is a name mpigen has, every test it names exists
(a case file, or a test function in its file), a checked row names both, the figure the doc and
the README state is the one the tables give, and every module of mpigen/validate,
mpigen/check, a target's checks and mpigen/render/refusals.py that holds a rule is named by a
checked row (so that a new check comes with its row), the others being listed here with what
they are instead."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOC = ROOT / "docs" / "validation.md"
README = ROOT / "README.md"
HEADER = "| id | rule | status | check | test |"
STATUSES = ("checked", "on request", "unchecked", "not needed")
NAMED = re.compile(r"`(mpigen(?:\.\w+)+)`")
TEST = re.compile(r"`(tests/[^`\s]+)`")
FIGURE = re.compile(r"(\d+) of (\d+) rules\s+(?:are\s+)?checked\s+before\s+anything\s+reaches\s+a\s+cluster")
# Where mpigen's rules live: the validate and check stages, each target's checks, and the
# refusals of rendered objects; and the modules there that hold no rule: the stages' plumbing.
RULE_MODULES = ("mpigen/validate/*.py", "mpigen/check/*.py", "mpigen/render/*/checks.py", "mpigen/render/refusals.py")
NOT_RULES = {
    "mpigen/validate/__init__.py": "the package's door",
    "mpigen/validate/document.py": "runs the rules on a document",
    "mpigen/validate/fields.py": "the view of a document the rules read",
    "mpigen/validate/written_patches.py": "runs the per-value rules on overlays' patches as written",
    "mpigen/check/__init__.py": "the package's door",
    "mpigen/check/stage.py": "runs the rules on a compiled job",
    "mpigen/check/effective.py": "the pods as they will run, which the rules read",
    "mpigen/check/pod_fields.py": "which blueprint field set a rendered pod's field, for the rules' messages",
    "mpigen/check/pod_spec_rules.py": "runs the pod spec's rule modules on each role's template, each problem at its line",
}


def rows(text: str) -> list[dict[str, str]]:
    """Every row of every table of the doc whose header is HEADER, as column -> cell."""
    out, columns = [], None
    for line in text.splitlines():
        if line.strip() == HEADER:
            columns = [cell.strip() for cell in HEADER.strip("|").split("|")]
        elif columns and line.startswith("|"):
            if not line.startswith("|---"):
                cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                assert len(cells) == len(columns), line
                out.append(dict(zip(columns, cells)))
        else:
            columns = None
    return out


ROWS = rows(DOC.read_text(encoding="utf-8"))


def resolves(name: str) -> bool:
    """Whether a dotted name is a module of mpigen, or a name one of them holds."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_exists(reference: str) -> bool:
    """A case file, or `path::function` whose file defines that test function."""
    path, _, function = reference.partition("::")
    if not (ROOT / path).is_file():
        return False
    return not function or re.search(rf"^def {re.escape(function)}\(", (ROOT / path).read_text(encoding="utf-8"),
                                     re.M) is not None


test_exists.__test__ = False  # a helper, not a test


def problems_of(row: dict[str, str]) -> list[str]:
    """What is wrong with one row."""
    found = []
    if not re.fullmatch(r"[a-z0-9]+(?:[.-][a-z0-9]+)*", row["id"]):
        found.append("an id of lowercase words joined by '.' or '-'")
    if row["status"] not in STATUSES:
        found.append(f"a status of {STATUSES}")
    checks, tests = NAMED.findall(row["check"]), TEST.findall(row["test"])
    if row["status"] in ("checked", "on request") and not (checks and tests):
        found.append("a checked row names its check (`mpigen....`) and its test (`tests/...`)")
    if row["status"] in ("unchecked", "not needed") and len(NAMED.sub("", row["check"]).strip(" ,()—")) < 10:
        found.append("an unchecked or unneeded row says why in its check column")
    found += [f"{name} is no name of mpigen's" for name in NAMED.findall(" ".join(row.values())) if not resolves(name)]
    found += [f"{test} does not exist" for test in tests if not test_exists(test)]
    return found


def test_the_doc_has_its_tables():
    assert len(ROWS) > 50
    assert len({row["id"] for row in ROWS}) == len(ROWS), "ids are unique"


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_each_row_names_what_exists(row):
    assert problems_of(row) == []


def counts() -> dict[str, int]:
    return {status: sum(row["status"] == status for row in ROWS) for status in STATUSES}


def test_the_doc_and_the_readme_state_the_tables_figure():
    by_status = counts()
    figure = (by_status["checked"], by_status["checked"] + by_status["on request"] + by_status["unchecked"])
    doc = DOC.read_text(encoding="utf-8")
    for text in (doc, README.read_text(encoding="utf-8")):
        assert [tuple(map(int, found)) for found in FIGURE.findall(text)] == [figure]
    assert re.search(rf"\b{by_status['on request']} more (?:is|are) checked", doc)
    assert f"and {by_status['unchecked']} are not checked" in doc
    assert f"{by_status['not needed']} further rules need no check" in doc


def test_every_module_that_holds_a_rule_is_named_by_a_checked_row():
    named = {name for row in ROWS if row["status"] in ("checked", "on request")
             for name in NAMED.findall(row["check"])}
    modules = sorted(str(path.relative_to(ROOT)) for pattern in RULE_MODULES for path in ROOT.glob(pattern))
    unnamed = [module for module in modules if module not in NOT_RULES and not any(
        (name + ".").startswith(module.removesuffix(".py").replace("/", ".") + ".") for name in named)]
    assert unnamed == [], "add a row to docs/validation.md for each"
    assert set(NOT_RULES) <= set(modules), "a module NOT_RULES names is gone"


def test_the_row_checks_see_a_broken_row():
    """The checks above can fail: a row naming what does not exist is caught."""
    broken = {"id": "x.y", "rule": "r", "status": "checked", "check": "`mpigen.check.pod_checks.no_such_check`",
              "test": "`tests/unit/test_validation_coverage.py::test_no_such_test`"}
    assert len(problems_of(broken)) == 2
    assert problems_of({**broken, "status": "unchecked", "check": "—", "test": "—"}) != []
    assert Path(__file__).name in {"test_validation_coverage.py"}
