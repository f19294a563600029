"""A report cut to a budget of characters: what must stay (the overview, the closing line)
and pieces in order of importance, taken while they fit; what is left out is counted in one
line that says where to read it.

GitHub refuses a comment body over 65,536 characters: its REST API answers 422 "Body is too
long (maximum is 65536 characters)" (https://docs.github.com/rest/issues/comments#create-an-issue-comment;
the answer as quoted in danger/danger#424 and peter-evans/create-or-update-comment#182), the
limit `mpigen diff --format markdown` keeps to by default. A job summary ($GITHUB_STEP_SUMMARY)
takes up to 1 MiB a step: over it the runner drops the step's summary ("$GITHUB_STEP_SUMMARY
upload aborted, supports content up to a size of 1024k", https://docs.github.com/actions/using-
workflows/workflow-commands-for-github-actions#adding-a-job-summary); SUMMARY_LIMIT is that in
characters of at most 4 UTF-8 bytes each. Characters are what Python's len counts.
"""

from __future__ import annotations

from dataclasses import dataclass

COMMENT_LIMIT = 65536  # characters of a GitHub comment body
SUMMARY_LIMIT = 1024 * 1024 // 4  # characters that surely fit the 1 MiB of a step's job summary
DEFAULT_MORE = "`mpigen diff --format json` for every change"


@dataclass(frozen=True)
class Budget:
    """At most `chars` characters (0: no limit); `more` says where the part cut is read."""

    chars: int = 0
    more: str = DEFAULT_MORE


@dataclass(frozen=True)
class Piece:
    """A block of lines and what it counts as when left out (`job`: a job's details, `other`:
    those of the objects of no job, `row`: a row of a table)."""

    lines: tuple[str, ...]
    what: str

    @property
    def size(self) -> int:
        return sum(len(line) + 1 for line in self.lines)


NOUNS = {"job": ("job's details", "jobs' details"), "other": ("section of other objects", "sections of other objects"),
         "row": ("row of the table", "rows of the table")}


def fitted(head: list[str], pieces: list[Piece], tail: list[str], budget: Budget,
           cut_line) -> list[str]:
    """head, the pieces that fit in order (the first that does not fit stops the taking,
    so that nothing less important is shown in place of something more), and tail; where a
    piece is left out, the line `cut_line(said)` says how many of what and where to read
    them. Every line ends with a newline in the report: the count includes it."""
    if not budget.chars:
        return head + [line for piece in pieces for line in piece.lines] + tail
    used = sum(len(line) + 1 for line in head + tail)
    reserve = len(cut_line(_said(dict.fromkeys(NOUNS, 10**6), budget.more))) + 2
    taken: list[str] = []
    left: dict[str, int] = {}
    for piece in pieces:
        if left or used + piece.size + reserve > budget.chars:
            left[piece.what] = left.get(piece.what, 0) + 1
            continue
        taken += piece.lines
        used += piece.size
    if not left:
        return head + taken + tail
    return head + taken + ["", cut_line(_said(left, budget.more)), ""] + tail


def _said(left: dict[str, int], more: str) -> str:
    """`3 jobs' details and 12 rows of the table left out to fit: see MORE`."""
    parts = [f"{n} {NOUNS[what][n != 1]}" for what, n in sorted(left.items())]
    total = sum(left.values())
    return f"{total} more change{'s' if total != 1 else ''} ({', '.join(parts)}) left out to fit: see {more}"
