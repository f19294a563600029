"""The likely cause of a YAML syntax error, as a one-line hint that says how to fix it.

libyaml says what it could not parse (`mapping values are not allowed in this context`)
and where it noticed, which is often a line after the mistake. Each rule here looks at
libyaml's words and at the lines around its marks, and names the usual mistake behind
them (a tab, the indentation, a missing space after a colon, an unquoted `: ` or ` #`, an
unclosed quote or bracket, a document marker with something after it), pointing at the
place to fix: the colon that needs a space, the quote or bracket that is never closed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The line breaks of YAML (libyaml counts \r\n as one).
_BREAK = re.compile(r"\r\n|\r|\n|\x85|\u2028|\u2029")
# A whole line `key:value` (no space after the colon), not a URL's `scheme://`.
_NO_SPACE = re.compile(r"^\s*(?:-\s+)*[A-Za-z_][\w.\-]*(:)(?!//)[^\s:]")
_DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?:\s+\S|[^\s])")
QUOTES = "\"'"


def source_lines(text: str) -> list[str]:
    """The lines of a text as YAML counts them (libyaml's marks index this list)."""
    return _BREAK.split(text)


@dataclass(frozen=True)
class Hint:
    """Where to point (line and column from 1) and what to say."""

    line: int
    column: int
    text: str


class _Source:
    """The lines of the text, and libyaml's marks (from 0) as (line, column) from 0."""

    def __init__(self, text: str, exc):
        self.lines = source_lines(text)
        self.problem = exc.problem or ""
        self.context = exc.context or ""
        mark = exc.problem_mark or exc.context_mark
        self.at = (mark.line, mark.column)
        self.opened = (exc.context_mark.line, exc.context_mark.column) if exc.context_mark else self.at

    def line(self, index: int) -> str:
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def char(self, where: tuple[int, int]) -> str:
        text = self.line(where[0])
        return text[where[1]] if where[1] < len(text) else ""

    def previous(self, index: int) -> int | None:
        """The last line before `index` that holds something other than a comment."""
        for before in range(index - 1, -1, -1):
            stripped = self.line(before).strip()
            if stripped and not stripped.startswith("#"):
                return before
        return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _hint(where: tuple[int, int], text: str) -> Hint:
    return Hint(where[0] + 1, where[1] + 1, text)


def _no_space(src: _Source, index: int | None) -> Hint | None:
    """`workers:4`: a colon with no space after it does not end a key."""
    found = _NO_SPACE.match(src.line(index)) if index is not None else None
    if found is None:
        return None
    text = src.line(index).strip()
    key, value = text.split(":", 1)
    return _hint((index, found.start(1)), f"a key needs a space after its colon: write {key}: {value}")


def _document_marker(src: _Source, index: int | None) -> Hint | None:
    """`--- a: 1`, `--- ---`: a document marker with something after it on its line."""
    text = src.line(index) if index is not None else ""
    if not _DOCUMENT_MARKER.match(text):
        return None
    return _hint((index, 0), f"a document marker ({text[:3]}) stands on a line of its own: put what follows it "
                             "on the next line, or remove the extra marker")


def _ancestors(src: _Source, index: int) -> list[int]:
    """The indentations above line `index` it could line up with: that of the line before
    it, then each smaller one going up (its parents')."""
    found: list[int] = []
    before = src.previous(index)
    while before is not None:
        indent = _indent(src.line(before))
        if not found or indent < found[-1]:
            found.append(indent)
        before = src.previous(before)
    return found


def _spaces(count: int) -> str:
    return f"{count} space{'s' if count != 1 else ''}"


def _lines_up_with_nothing(src: _Source, index: int) -> Hint:
    indent = _indent(src.line(index))
    above = [str(a) for a in _ancestors(src, index)] or ["0"]
    choices = above[0] if len(above) == 1 else f"{', '.join(above[:-1])} or {above[-1]}"
    return _hint((index, indent), f"check the indentation: this line is indented {_spaces(indent)}, which lines up "
                                  f"with no line above it ({choices} spaces)")


def _quote_suggestion(text: str, colon: int) -> str:
    """`key: "value"` for a line whose value holds `: `, when the value can be quoted as is."""
    key, value = text[:colon].strip(), text[colon + 1:].strip()
    for quote in QUOTES:
        if quote not in value and " #" not in value:
            return f": {key}: {quote}{value}{quote}"
    return ""


def mapping_value(src: _Source) -> Hint:
    """`mapping values are not allowed in this context`: a colon libyaml read as a key's, in a
    place where no key can be."""
    index, column = src.at
    text = src.line(index)
    hint = _document_marker(src, index)
    if hint:
        return hint
    colon = text.find(": ")
    if 0 <= colon < column:  # `image: horovod/horovod: 0.28.1`
        return _hint(src.at, "a value that holds ': ' must be quoted" + _quote_suggestion(text, colon))
    before = src.previous(index)
    hint = _document_marker(src, before) or _no_space(src, before)
    if hint:
        return hint
    if before is not None and ":" not in src.line(before) and not src.line(before).lstrip().startswith("-"):
        return _neither(src, before)  # `workers 4`, read with this line as one key
    hint = _moved_out(src, before, index, "the next line reads as the rest of its value")
    if hint:
        return hint
    if before is not None and _indent(text) > _indent(src.line(before)):
        above = src.line(before)
        key = above.strip().lstrip("- ").split(":", 1)[0]
        return _hint((index, _indent(text)), f"check the indentation: this line is indented more than {key!r} "
                                             "above it, so it reads as the rest of that value; indent it as "
                                             f"{key!r} ({_spaces(_indent(above) + _dash(above))})")
    return _hint(src.at, "a value that holds ': ' must be quoted")


def _moved_out(src: _Source, before: int | None, index: int, then: str) -> Hint | None:
    """`workers: 2` moved left, out of the mapping it belongs to: the line before libyaml's
    mark is indented less than the line above it and the line below it, and the line below
    lines up with a line above, so it ends their mapping and `then` (what libyaml makes of
    the line below). That line is the one to fix, indented as the lines around it."""
    if before is None or (earlier := src.previous(before)) is None:
        return None
    moved, indent = _indent(src.line(before)), _indent(src.line(index))
    if not moved < indent <= _indent(src.line(earlier)) or indent not in _ancestors(src, before):
        return None
    owner = next((up for up in range(earlier, -1, -1)
                  if src.line(up).strip() and not src.line(up).lstrip().startswith("#")
                  and _indent(src.line(up)) < indent), None)
    left = ""
    if owner is not None:
        name = src.line(owner).strip().lstrip("- ").split(":", 1)[0]
        left = f", so it leaves {name!r} (line {owner + 1})"
    return _hint((before, moved), f"check the indentation: this line is indented {_spaces(moved)}, less than the "
                                  f"lines above and below it ({_spaces(indent)}){left}, and {then}; "
                                  f"indent it {_spaces(indent)}, as the lines around it")


def _dash(text: str) -> int:
    """How far a line's key sits after its list dashes (`- - name:` -> 4)."""
    stripped = text.lstrip(" ")
    return len(stripped) - len(stripped.lstrip("- "))


def missing_colon(src: _Source) -> Hint:
    """`could not find expected ':'`: a line that is neither `key: value` nor a list item."""
    index = src.opened[0]
    hint = _no_space(src, index) or _document_marker(src, index)
    if hint:
        return hint
    return _neither(src, index)


def _neither(src: _Source, index: int) -> Hint:
    return _hint((index, _indent(src.line(index))), "this line is neither 'key: value' nor a list item ('- '): add "
                                                    "': ' after its key, or join it to the value above it")


def expected_key(src: _Source) -> Hint:
    """`did not find expected key`: something in a mapping where its next key should be."""
    index, column = src.at
    text = src.line(index)
    first = _indent(text)
    if column == first == src.opened[1] and src.char(src.at) == "-":
        return _hint(src.at, "a list item among keys: a list goes under a key of its own ('key:' with the items "
                             "indented below it)")
    if column == first and src.char(src.at) == ":":
        return _hint(src.at, "the line starts with ':': its key is missing")
    if column == first:
        return (_moved_out(src, src.previous(index), index, "the next line, indented more, fits nowhere")
                or _lines_up_with_nothing(src, index))
    quote = text[:column].rstrip()[-1:]
    if quote and quote in QUOTES:
        opened = _opened_before(src, index, text[:column].rstrip(), quote)
        if opened is not None:  # `image: "x` ... the next quote, lines below, closed it
            return _hint(opened, f"this quote ({quote}) is not closed on its line, so the value runs on to the next "
                                 f"{quote}: end the value with {quote}")
        return _hint(src.at, "text after a closing quote: quote the whole value (inside '...' write '' for a "
                             "quote, inside \"...\" write \\\")")
    return _hint(src.at, "check the indentation and the quoting of this line")


def _opened_before(src: _Source, index: int, before: str, quote: str) -> tuple[int, int] | None:
    """Where the quoted value that `before` (a line up to a closing quote) ends began, when
    that is on an earlier line: the last quote of the nearest line above with an odd count."""
    if before.count(quote) % 2 == 0:
        return None
    for above in range(index - 1, -1, -1):
        text = src.line(above)
        if text.count(quote) % 2:
            return above, text.rfind(quote)
    return None


def expected_dash(src: _Source) -> Hint:
    """`did not find expected '-' indicator`: a line at a list's indentation that is no item of it."""
    index = src.at[0]
    text = src.line(index)
    items = src.opened[1]
    if text.lstrip().startswith("-"):
        return _hint((index, _indent(text)), f"check the indentation: this list item is indented "
                                             f"{_spaces(_indent(text))} and the items above it {items}: align the "
                                             "dashes")
    return _hint((index, _indent(text)), f"this line is at the indentation of the list items above it "
                                         f"({_spaces(items)}) but is no item: start it with '- ', or indent it as "
                                         "the key the list belongs to, to end the list")


def unclosed_flow(src: _Source) -> Hint:
    """`did not find expected ',' or ']'` (or '}'): a [...] or {...} not closed where it should be."""
    closing = "]" if "']'" in src.problem else "}"
    opening = src.line(src.opened[0])
    if src.at[0] > src.opened[0]:
        if " #" in opening[src.opened[1]:]:
            return _hint(src.opened, f"' #' starts a comment, which hides the rest of the line and its closing "
                                     f"'{closing}': quote the item that holds '#'")
        return _hint(src.opened, f"this '{src.char(src.opened)}' is not closed on its line: add '{closing}' where it "
                                 "ends, or quote the value if the bracket belongs to it")
    return _hint(src.at, "items of [...] and {...} are separated by ', ': a comma is missing before this item, or "
                         "the item needs quotes")


def empty_item(src: _Source) -> Hint:
    """`did not find expected node content`: `[a, , b]`, or a [ or { the text ends in."""
    if src.char(src.at) == "" and not "".join(src.lines[src.at[0]:]).strip():
        for index in range(src.at[0], -1, -1):
            column = max(src.line(index).rfind("["), src.line(index).rfind("{"))
            if column >= 0:
                closing = "]" if src.line(index)[column] == "[" else "}"
                return _hint((index, column), f"the file ends inside this '{src.line(index)[column]}': add "
                                              f"'{closing}' where it ends")
    return _hint(src.at, "an empty item: remove the extra comma, or put the value in quotes")


def unclosed_quote(src: _Source) -> Hint:
    """`found unexpected end of stream` (or document indicator) while scanning a quoted scalar."""
    quote = src.char(src.opened) or '"'
    return _hint(src.opened, f"this quote ({quote}) is never closed: end the value with {quote}")


def cannot_start(src: _Source) -> Hint:
    """`found character that cannot start any token`."""
    char = src.char(src.at)
    if char == "\t":
        return tab(src)
    return _hint(src.at, f"{char!r} cannot start an unquoted value: put the value in quotes")


def tab(src: _Source) -> Hint:
    """A tab where YAML needs spaces."""
    index, column = src.at
    where = (index, column) if src.char(src.at) == "\t" else (index, src.line(index).find("\t"))
    return _hint(where if where[1] >= 0 else src.at, "YAML indents with spaces, never tabs: replace the tab with "
                                                     "spaces")


def document_start(src: _Source) -> Hint:
    """`did not find expected <document start>`: content after `...`, or a directive mid-stream
    (libyaml notices it on the line after)."""
    for index in (src.at[0], src.previous(src.at[0])):
        if index is not None and src.line(index).startswith("%"):
            return _hint((index, 0), "a directive (%...) goes before a document's '---' only: remove it")
    return _hint(src.at, "after '...' (the end of a document) the next document starts with '---': add it, or "
                         "remove the '...'")


# (words in libyaml's problem, words in its context or "", the rule), first match wins.
_RULES = (
    ("tab character", "", tab),
    ("cannot start any token", "", cannot_start),
    ("mapping values are not allowed", "", mapping_value),
    ("could not find expected ':'", "", missing_colon),
    ("did not find expected key", "", expected_key),
    ("did not find expected '-' indicator", "", expected_dash),
    ("did not find expected ',' or", "", unclosed_flow),
    ("", "while scanning a quoted scalar", unclosed_quote),
    ("unknown escape character", "", lambda src: _hint(
        src.at, "inside \"...\" a backslash starts an escape: use single quotes ('C:\\data') or write \\\\")),
    ("<document start>", "", document_start),
    ("block sequence entries are not allowed", "", lambda src: _hint(
        src.at, "a list cannot start on its key's line: put the items on the lines below it ('- a'), or write "
                "[a, b]")),
    ("", "while scanning a block scalar", lambda src: _hint(
        src.at, "after '|' or '>' only a comment may follow on the line: put the text on the lines below, "
                "indented")),
    ("", "while scanning an a", lambda src: _hint(  # an anchor, an alias
        src.opened, "'&' and '*' start anchors and aliases: put a value that starts with them in quotes")),
    ("tag", "", lambda src: _hint(src.at, "'!' starts a tag: put a value that starts with '!' in quotes")),
    ("did not find expected node content", "", empty_item),
    ("directive", "", lambda src: _hint(src.at, "one %YAML directive per document, and YAML 1.1 or 1.2: remove it")),
)


def syntax_hint(text: str, exc) -> Hint:
    """The likely cause of libyaml's error `exc` (a yaml.MarkedYAMLError) in `text`, and where
    to fix it."""
    src = _Source(text, exc)
    for problem, context, rule in _RULES:
        if problem in src.problem and context in src.context:
            return rule(src)
    return _hint(src.at, "check the indentation and the quoting of this line and of the line above it")
