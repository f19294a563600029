"""review/ (but the importer, the inverse of a target's render) asks the table of kinds
(mpigen.render.targets.kind_facts) and names no target and no kind only one target writes, in
code or in prose: a new target diffs and validates with nothing added there."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from mpigen.render.targets import TARGETS

REVIEW = Path(__file__).resolve().parents[3] / "mpigen" / "review"
MODULES = sorted(p for p in REVIEW.rglob("*.py") if "importer" not in p.relative_to(REVIEW).parts)


def own_names() -> set[str]:
    """Each target's name, and the kinds that target alone writes (a PodGroup is several targets')."""
    writers = Counter(kind.kind for target in TARGETS.values() for kind in set(target.kinds))
    return set(TARGETS) | {kind.kind for target in TARGETS.values() for kind in target.kinds if writers[kind.kind] == 1}


def test_review_names_no_target_and_no_kind_of_one_target():
    names = own_names()
    assert {"jobset", "MPIJob", "TrainJob"} <= names  # what the test looks for
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")s?\b", re.I)
    found = [f"{path.relative_to(REVIEW)}:{number}: {line.strip()}" for path in MODULES
             for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert found == []
