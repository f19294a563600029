"""The report of checking rendered objects: one ObjectReport per object (valid, invalid or
skipped, with its errors), each read back from the exact text mpigen writes, and the
report's forms: text (a line per problem, or per object), JSON, or JUnit XML for CI. Schema validation
(mpigen.review.schemas) and `validate --server` (mpigen.review.live) both report this way.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from xml.sax.saxutils import escape, quoteattr

from mpigen.load.parser import parse

STATUSES = ("valid", "invalid", "skipped")


@dataclass
class ObjectReport:
    """What checking one rendered object found."""

    file: str  # where the object is written (env/namespace/kind-name.yaml)
    source: str  # the blueprint it comes from
    apiVersion: str
    kind: str
    namespace: str
    name: str
    status: str
    errors: list[str] = field(default_factory=list)


def check_rendered(rendered, check) -> list[ObjectReport]:
    """A report per rendered object (pipeline.RenderedObject), each read back from the exact
    text mpigen writes; `check(object) -> (status, errors)`."""
    reports = []
    for item in rendered:
        file = f"{item.env}/{item.path}" if item.env else item.path
        obj = parse(item.text, file)[0].data
        meta = obj.get("metadata", {})
        source = item.text.split("\n", 2)[1].removeprefix("# Source: ") if item.text.startswith("---\n# ") else ""
        status, errors = check(obj)
        reports.append(ObjectReport(file, source, obj.get("apiVersion", ""), obj.get("kind", ""),
                                    meta.get("namespace", ""), meta.get("name", ""), status, errors))
    return reports


def summary(reports: list[ObjectReport]) -> dict[str, int]:
    return {"objects": len(reports), **{status: sum(r.status == status for r in reports) for status in STATUSES}}


def format_text(reports: list[ObjectReport], against: str, every: bool = False) -> str:
    """A line per problem (an invalid object's errors), or with `every` a line per object
    (valid, skipped too). No summary: the command says it once, on standard error."""
    lines = []
    for r in reports:
        what = f"{r.file}: {r.kind} {r.namespace}/{r.name}" if r.namespace else f"{r.file}: {r.kind} {r.name}"
        if r.status == "valid":
            lines += [f"{what} is valid"] if every else []
        elif r.status == "invalid" or every:
            lines += [f"{what} is {r.status}: {error}" for error in r.errors]
    return "".join(f"{line}\n" for line in lines)


def format_json(reports: list[ObjectReport], against: str) -> str:
    return json.dumps({"against": against, "resources": [asdict(r) for r in reports],
                       "summary": summary(reports)}, indent=2) + "\n"


def format_junit(reports: list[ObjectReport], against: str) -> str:
    """One test suite per blueprint, one test case per object (JUnit XML, as CI systems read it)."""
    suites: dict[str, list[ObjectReport]] = {}
    for r in reports:
        suites.setdefault(r.source or r.file, []).append(r)
    counts = summary(reports)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name={quoteattr(f"mpigen validate ({against})")} '
           f'tests="{counts["objects"]}" failures="{counts["invalid"]}" skipped="{counts["skipped"]}">']
    for source, items in suites.items():
        failures = sum(r.status == "invalid" for r in items)
        skipped = sum(r.status == "skipped" for r in items)
        out.append(f'  <testsuite name={quoteattr(source)} tests="{len(items)}" failures="{failures}" '
                   f'skipped="{skipped}">')
        for r in items:
            name = quoteattr(f"{r.kind} {r.namespace}/{r.name}" if r.namespace else f"{r.kind} {r.name}")
            head = f'    <testcase classname={quoteattr(r.file)} name={name}'
            if r.status == "valid":
                out.append(head + "/>")
            elif r.status == "skipped":
                out.append(head + f'><skipped message={quoteattr(r.errors[0])}/></testcase>')
            else:
                out.append(head + f'><failure message={quoteattr(r.errors[0])}>'
                           f'{escape(chr(10).join(r.errors))}</failure></testcase>')
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


FORMATS = {"text": format_text, "json": format_json, "junit": format_junit}
