"""`mpigen check`: is the committed output folder what a render gives now?

CI runs it on every pull request, so that the manifests Argo CD or Flux apply are never
out of date with the blueprints. The comparison is byte for byte, file by file, over
exactly the files a render would write or remove (the index included); files mpigen
does not own are not its business.
"""

from __future__ import annotations

import difflib
import os
from stat import S_ISREG
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.cache.folders import FolderRecord
from mpigen.output.failure import WriteFailed, machine_error
from mpigen.output.index import INDEX


@dataclass
class FolderReport:
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    diff: str = ""

    @property
    def stale(self) -> bool:
        return bool(self.changed or self.missing or self.extra)

    def summary(self) -> str:
        parts = [f"{len(items)} {what}" for what, items in
                 (("changed", self.changed), ("missing", self.missing), ("extra", self.extra)) if items]
        return ", ".join(parts) + " file" + ("s" if sum(map(len, (self.changed, self.missing, self.extra))) != 1 else "")


def compare_folder(out: Path, plan, cache: Path | None = None) -> FolderReport:
    """The unified diff that would turn the folder into the planned render (see
    mpigen.output.plan.plan_folder): a/ is the folder as committed, b/ the fresh render. A
    file whose stat is what mpigen saw when it last read it holds what it held then (with
    the cache folder `cache`: mpigen.cache.folders). Raises InputError when a file of the
    folder cannot be read."""
    record = FolderRecord(cache, out)
    root = out.as_posix().rstrip("/")
    stale = set(plan.stale)
    changed, missing = [], []
    for path in plan.files:  # in the render's order; the report in the order of paths
        if path in stale:
            continue
        try:
            meta = os.stat(f"{root}/{path}")
        except OSError:
            meta = None
        if meta is None or not S_ISREG(meta.st_mode):
            missing.append(path)
            continue
        digest = plan.files.sha256(path)
        if record.holds(path, meta, digest):
            continue
        if _read(out, root, path) == plan.files[path]:
            record.read(path, meta, digest)
        else:
            changed.append(path)
    record.save()
    return _report(out, root, plan, sorted(changed), sorted(missing))


def _report(out: Path, root: str, plan, changed: list[str], missing: list[str]) -> FolderReport:
    """The report, its diff in the order of paths (the index last: its diff only repeats, as
    digests, the changes shown above it)."""
    report = FolderReport(changed=[p for p in changed if p != INDEX], missing=[p for p in missing if p != INDEX],
                          extra=list(plan.stale))
    report.changed += [INDEX] if INDEX in changed else []
    report.missing += [INDEX] if INDEX in missing else []
    chunks = {}
    for path in report.changed:
        chunks[path] = _unified(_read(out, root, path).decode("utf-8", "replace"), plan.files[path].decode("utf-8"),
                                f"{root}/{path}")
    for path in report.missing:
        chunks[path] = _unified(None, plan.files[path].decode("utf-8"), f"{root}/{path}")
    for path in report.extra:
        chunks[path] = _unified(_read(out, root, path).decode("utf-8", "replace"), None, f"{root}/{path}")
    order = sorted(p for p in chunks if p != INDEX and p not in plan.stale) + list(plan.stale) + \
        [INDEX] * (INDEX in chunks)
    report.diff = "".join(chunks[path] for path in order)
    return report


def _read(out: Path, root: str, path: str) -> bytes:
    """The bytes of a file of the folder (plain strings, not pathlib: tens of thousands of
    files are read on a large repository)."""
    try:
        with open(f"{root}/{path}", "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise machine_error(out, WriteFailed(path, exc, "cannot read")) from None


def _unified(old: str | None, new: str | None, path: str) -> str:
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile="/dev/null" if new is None else f"b/{path}")
    text = ""
    for line in lines:
        text += line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
    return text
