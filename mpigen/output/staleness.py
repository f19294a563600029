"""`mpigen check`: is the committed output folder what a render gives now?

CI runs it on every pull request, so that the manifests Argo CD or Flux apply are never
out of date with the blueprints. The comparison is byte for byte, file by file, over
exactly the files a render would write or remove (the index included); files mpigen
does not own are not its business.
"""

from __future__ import annotations

import re
from stat import S_ISREG
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.cache.folders import FolderRecord
from mpigen.output.changes import edited_files
from mpigen.output.failure import WriteFailed, machine_error
from mpigen.output.index import INDEX


@dataclass
class FolderReport:
    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    diff: str = ""
    edited: list[str] = field(default_factory=list)  # of the changed: edited by hand (render refuses them)

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
    changed, missing = {}, []  # changed: path -> the bytes the folder holds
    for path, meta, digest, _ in record.unseen(root, ((p, d) for p, d in plan.files.sha256s() if p not in stale)):
        if meta is None or not S_ISREG(meta.st_mode):
            missing.append(path)
        elif (current := _read(out, root, path)) == plan.files[path]:
            record.read(path, meta, digest)
        else:
            changed[path] = current
    record.save()
    report = _report(out, root, plan, changed, sorted(missing))
    report.edited = edited_files(plan, changed)
    return report


def changes_report(out: Path, new: dict[str, bytes]) -> FolderReport:
    """The report of a folder that holds what a render gives but `new` (path -> the bytes the
    render gives each of a few files of the folder, which holds other bytes in some)."""
    root = out.as_posix().rstrip("/")
    current = {path: _read(out, root, path) for path in new}
    return _report(out, root, _Given(new), {p: data for p, data in current.items() if data != new[p]}, [])


@dataclass
class _Given:
    """A plan's files, given (none stale)."""

    files: dict[str, bytes]
    stale: tuple = ()


def _report(out: Path, root: str, plan, changed: dict[str, bytes], missing: list[str]) -> FolderReport:
    """The report, its diff in the order of paths (the index last: its diff only repeats, as
    digests, the changes shown above it); `changed` holds what the folder has of each."""
    report = FolderReport(changed=sorted(p for p in changed if p != INDEX), missing=[p for p in missing if p != INDEX],
                          extra=list(plan.stale))
    report.changed += [INDEX] if INDEX in changed else []
    report.missing += [INDEX] if INDEX in missing else []
    chunks = {}
    for path in report.changed:
        chunks[path] = _unified(changed[path].decode("utf-8", "replace"), plan.files[path].decode("utf-8"),
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
    import difflib  # only what check reports needs it, not every run

    a, b = (old or "").splitlines(keepends=True), (new or "").splitlines(keepends=True)
    skip = _common_ends(a, b)
    lines = difflib.unified_diff(
        a[skip[0]:len(a) - skip[1]], b[skip[0]:len(b) - skip[1]],
        fromfile="/dev/null" if old is None else f"a/{path}",
        tofile="/dev/null" if new is None else f"b/{path}")
    text = ""
    for line in lines:
        if skip[0] and line.startswith("@@ -"):
            line = _HUNK.sub(lambda m: f"{m[1]}{int(m[2]) + skip[0]}", line)
        text += line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
    return text


_HUNK = re.compile(r"([-+])(\d+)")
_CONTEXT = 3  # lines of context around a change (unified_diff's n)


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many lines at the start and at the end of two texts need not be compared: those
    they share beyond the context of a change. At 60,000 lines (the index of a large
    folder), comparing them all costs a tenth of a second."""
    if len(a) < 1000 or len(b) < 1000:
        return 0, 0
    prefix, most = 0, min(len(a), len(b))
    while prefix < most and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < most - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return max(0, prefix - _CONTEXT), max(0, suffix - _CONTEXT)
