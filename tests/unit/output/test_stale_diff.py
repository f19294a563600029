"""check's diff of a large file compares only the lines between its first and last change
(staleness._common_ends): the diff is difflib's of the whole texts, hunk for hunk."""

from __future__ import annotations

import difflib

from hypothesis import given, settings, strategies as st
from tests.support.properties import examples

from mpigen.output.staleness import _unified

edit = st.tuples(st.sampled_from(["change", "insert", "delete"]), st.integers(min_value=0, max_value=2999))


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from([5, 999, 1000, 3000]), st.lists(edit, min_size=1, max_size=4), st.booleans())
def test_the_diff_of_a_large_file_is_difflibs(lines, edits, no_final_newline):
    a = [f"    \"team/job-{i:05d}.yaml\": \"{i:064x}\",\n" for i in range(lines)]
    b = list(a)
    for kind, where in edits:
        at = where % len(b) if b else 0
        if kind == "change" and b:
            b[at] = f"changed {at}\n"
        elif kind == "insert":
            b.insert(at, f"new {at}\n")
        elif b:
            del b[at]
    old, new = "".join(a), "".join(b).rstrip("\n") if no_final_newline else "".join(b)
    expected = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                        fromfile="a/x", tofile="b/x"))
    assert _unified(old, new, "x") == expected
