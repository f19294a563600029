"""The text files of a test repository: writing one, and the position of a string in its text."""

from __future__ import annotations

from pathlib import Path


def write(path: Path | str, text: str) -> str:
    """Write text to path (a file of a test repository), making its folders; return the text."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


def pos(text: str | bytes, needle: str | bytes, sub: str | bytes | None = None,
        after: str | bytes | None = None) -> tuple[int, int]:
    """1-based (line, column) of `needle` in text (of `sub` inside it when given), searching
    after the first occurrence of `after` when given. `needle` must occur exactly once there,
    so a case can never silently point at the wrong spot. Works on str and bytes."""
    start = 0 if after is None else text.index(after) + len(after)
    assert text.count(needle, start) == 1, f"{needle!r} must occur exactly once in the case text"
    index = text.index(needle, start) + (needle.index(sub) if sub is not None else 0)
    newline = "\n" if isinstance(text, str) else b"\n"
    before = text[:index]
    return before.count(newline) + 1, index - (before.rfind(newline) + 1) + 1
