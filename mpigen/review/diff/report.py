"""The report of a diff: every job with a difference, in the order of environment,
namespace and job, the blueprint edits an overlay makes moot, and its three forms (text,
markdown, json)."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.review.diff.budget import COMMENT_LIMIT, Budget
from mpigen.review.diff.json_format import format_json
from mpigen.review.diff.markdown_format import format_markdown
from mpigen.review.diff.model import JobDiff
from mpigen.review.diff.overridden import Overridden
from mpigen.review.diff.restarts import Restart
from mpigen.review.diff.text_format import PLAIN, Style, format_text
from mpigen.review.diff.upgrades import Upgrade


@dataclass
class Report:
    """Every job with a difference, sorted by environment, namespace and job, the blueprint
    edits an overlay makes moot (they change no object, so they are no difference), and the
    environments whose clusters move to another version of an operator, with what that does
    to the objects they run (mpigen.review.diff.upgrades), and the jobs whose run going on the
change restarts, with why (mpigen.review.diff.restarts)."""

    old_label: str
    new_label: str
    jobs: list[JobDiff]
    overridden: list[Overridden] = field(default_factory=list)
    upgrades: list[Upgrade] = field(default_factory=list)  # environments moving to another operator version
    restarts: list[Restart] = field(default_factory=list)  # jobs whose run going on restarts, and why

    def differs(self) -> bool:
        return bool(self.jobs)

    def immutable(self) -> bool:
        return any(job.immutable for job in self.jobs)

    def format(self, fmt: str, style: Style = PLAIN, budget: Budget | None = None) -> str:
        """The report as text (its lines marked by `style`), markdown or json; text and markdown
        cut to `budget` (None: text whole, markdown to what a GitHub comment takes); json is
        always whole."""
        formats = {"text": lambda report: format_text(report, style, budget or Budget()),
                   "markdown": lambda report: format_markdown(report, budget or Budget(COMMENT_LIMIT)),
                   "json": format_json}
        if fmt not in formats:
            raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(formats)}")
        return formats[fmt](self)
