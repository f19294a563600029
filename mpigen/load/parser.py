"""YAML text -> Documents with positions, read as Kubernetes reads YAML.

YAML is read as kubectl and the API server read manifests (sigs.k8s.io/yaml over go-yaml v2:
mpigen.load.go_yaml_scalars), so `on`, `yes`, `0755` and `1:30` mean for mpigen what they mean
for Kubernetes. Aliases are
refused (they buy nothing in a blueprint and make alias bombs possible), and so are
duplicate keys, custom tags and deep nesting.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from yaml.events import (AliasEvent, DocumentEndEvent, MappingEndEvent, MappingStartEvent, ScalarEvent,
                         SequenceEndEvent, StreamEndEvent)
from yaml.nodes import ScalarNode

from mpigen.errors import Diagnostic, InputError, Mark, error, warning
from mpigen.load.document import Document, Loc, field_path
from mpigen.load.files import NAMED, display_path, read_text
from mpigen.load.go_yaml_scalars import resolve
from mpigen.load.syntax_hints import source_lines, syntax_hint

MAX_DEPTH = 64
_LIBYAML_DEPTH = "maximum nesting depth"  # libyaml's words when its own nesting limit is met


_LOADERS: dict = {}


def _loader_class(pure: bool = False):
    """PyYAML's safe loader (libyaml's parser when available, unless `pure`), for its events:
    a plain scalar's type is go-yaml's, not PyYAML's YAML 1.1 resolver's
    (mpigen.load.go_yaml_scalars), so that a value means for mpigen what it means for kubectl."""
    base = (None if pure else getattr(yaml, "CSafeLoader", None)) or yaml.SafeLoader
    if base not in _LOADERS:
        class Loader(base):
            pass

        _LOADERS[base] = Loader
    return _LOADERS[base]


def parse(text: str, shown: str) -> list[Document]:
    """Every document of a YAML text, as plain data with marks. Raises InputError when the
    text is not YAML at all; problems inside a document are kept on it (Document.problems)
    so that the rest of it is still checked.

    PyYAML's event stream (from libyaml when PyYAML has it) is turned straight into plain
    data and marks by an iterative composer, so that no input can exhaust the stack."""
    return _parse(_loader_class(), text, shown)


def _parse(loader_class, text: str, shown: str) -> list[Document]:
    try:
        loader = loader_class(text)
    except UnicodeEncodeError:  # the C reader encodes to UTF-8: a lone surrogate cannot be
        raise InputError([_reader_error(text, shown, None)])
    except yaml.reader.ReaderError as exc:
        raise InputError([_reader_error(text, shown, exc)])
    try:
        return _Composer(loader, shown, text).documents()
    except yaml.MarkedYAMLError as exc:
        if _LIBYAML_DEPTH in (exc.problem or "") and loader_class is not _loader_class(pure=True):
            # libyaml's own limit (from PyYAML 6.0.4's libyaml, 1,000 levels), met while it scans
            # ahead of mpigen's (MAX_DEPTH): the pure parser finds mpigen's, where it is.
            return _parse(_loader_class(pure=True), text, shown)
        if not (exc.problem_mark or exc.context_mark):
            raise InputError([error(Mark(shown), _yaml_message(exc))])
        # Where the mistake likely is (the colon that needs a space, the quote never closed),
        # with libyaml's words and a hint of how to fix it.
        hint = syntax_hint(text, exc)
        raise InputError([error(Mark(shown, hint.line, hint.column), f"{_yaml_message(exc)}; {hint.text}")])
    except yaml.reader.ReaderError as exc:
        raise InputError([_reader_error(text, shown, exc)])
    except yaml.YAMLError as exc:
        raise InputError([error(Mark(shown), f"invalid YAML: {_one_line(str(exc))}")])
    finally:
        loader.dispose()


def load_file(path: Path, fix: str = NAMED) -> list[Document]:
    """The documents of one file (see read_text for `fix`)."""
    shown = display_path(path)
    return parse(read_text(path, shown, fix), shown)


def _yaml_message(exc) -> str:
    """libyaml's words for what it could not parse (its context, `while parsing a block
    mapping`, is left to the hint, which says it in a user's terms)."""
    return f"invalid YAML: {(exc.problem or exc.context or 'cannot parse').strip()}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# Characters YAML does not allow in a stream (PyYAML's Reader.NON_PRINTABLE; libyaml's
# reader refuses the same set).
_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _reader_error(text: str, shown: str, exc) -> Diagnostic:
    """A character YAML refuses, at its position. libyaml reports a byte offset and PyYAML a
    character index, so the character is looked up again here for one answer from both."""
    found = re.search(_NON_PRINTABLE, text)
    if found is None:
        reason = getattr(exc, "reason", None) or str(exc)
        return error(Mark(shown), f"invalid YAML: {_one_line(reason)}")
    before = text[:found.start()]
    line = before.count("\n") + 1
    column = found.start() - (before.rfind("\n") + 1) + 1
    return error(Mark(shown, line, column),
                 f"invalid YAML: unacceptable character #x{ord(found.group()):04x}: special characters are not allowed")


def _mark(mark, shown: str) -> Mark:
    return Mark(shown, mark.line + 1, mark.column + 1)


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


_KIND_WORDS = {"bool": "a boolean", "int": "an integer", "float": "a number", "null": "null",
               "timestamp": "a date"}


_WANT_KEY = object()  # a mapping frame waiting for its next key
_SKIP = object()      # ... whose current key was refused: its value is read but not kept


class _Composer:
    """Events -> Documents, with an explicit stack instead of recursion.

    Depth counts every node, scalars and keys included, the root being at depth 1; a node
    deeper than MAX_DEPTH is an error at that node. The value of a refused key (duplicate,
    non-string, merge) is still read, for aliases and depth, but nothing of it is kept.

    An open collection is a frame on the stack: [dict, loc, first key marks, key |
    _WANT_KEY | _SKIP, key mark] or [list, loc]."""

    def __init__(self, loader, shown: str, text: str):
        self.loader = loader
        self.shown = shown
        self.text = text
        self._lines: list[str] | None = None

    def documents(self) -> list[Document]:
        get_event = self.loader.get_event
        get_event()  # StreamStartEvent
        docs = []
        while get_event().__class__ is not StreamEndEvent:  # a DocumentStartEvent
            docs.append(self.document())
        return docs

    def _alias(self, event):
        return InputError([error(_mark(event.start_mark, self.shown),
                                 f"aliases are not allowed in mpigen files (found *{event.anchor}); "
                                 "write the value out in full")])

    def _too_deep(self, event):
        return InputError([error(_mark(event.start_mark, self.shown), f"nesting is deeper than {MAX_DEPTH} levels")])

    def _skip(self, depth: int) -> None:
        """Read the rest of a collection whose start (at depth) was just read, keeping nothing."""
        get_event = self.loader.get_event
        ends = (MappingEndEvent, SequenceEndEvent)
        open_ = 1
        while open_:
            event = get_event()
            cls = event.__class__
            if cls in ends:
                open_ -= 1
                depth -= 1
                continue
            if cls is AliasEvent:
                raise self._alias(event)
            if depth + 1 > MAX_DEPTH:
                raise self._too_deep(event)
            if cls is not ScalarEvent:
                open_ += 1
                depth += 1

    def document(self) -> Document:
        """The next document of the stream, its DocumentStartEvent read."""
        get_event = self.loader.get_event
        shown = self.shown
        doc = Document(shown, None, Mark(shown))
        key_marks, value_marks = doc.key_marks, doc.value_marks
        stack: list[list] = []
        while True:
            event = get_event()
            cls = event.__class__
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                stack.pop()
                continue
            if cls is DocumentEndEvent:
                return doc
            if cls is AliasEvent:
                raise self._alias(event)
            depth = len(stack) + 1
            if depth > MAX_DEPTH:
                raise self._too_deep(event)
            start = event.start_mark
            mark = Mark(shown, start.line + 1, start.column + 1)
            if not stack:
                doc.start = value_marks[()] = mark
                doc.data = self._node(event, cls, mark, (), doc, stack)
                continue
            frame = stack[-1]
            parent = frame[0]
            if parent.__class__ is dict:
                loc = self._entry(event, cls, mark, frame, depth, doc)
                if loc is None:  # a key, or the value of a refused key
                    continue
                empty = cls is ScalarEvent and not event.style and event.value == ""
                value_marks[loc] = frame[4] if empty else mark  # `key:` with nothing after it: at the key
                parent[loc[-1]] = self._node(event, cls, mark, loc, doc, stack)
            else:
                loc = frame[1] + (len(parent),)
                key_marks[loc] = value_marks[loc] = mark
                parent.append(self._node(event, cls, mark, loc, doc, stack))

    def _entry(self, event, cls, mark: Mark, frame: list, depth: int, doc: Document) -> Loc | None:
        """The location of a mapping's value, or None when the event is a key (kept or
        refused) or the value of a refused key (read past)."""
        key = frame[3]
        if key is _WANT_KEY:
            self._key(event, cls, mark, frame, depth, doc)
            return None
        frame[3] = _WANT_KEY
        if key is _SKIP:
            if cls is not ScalarEvent:
                self._skip(depth)
            return None
        return frame[1] + (key,)

    def _key(self, event, cls, mark: Mark, frame: list, depth: int, doc: Document) -> None:
        """Keep a mapping's key, or refuse it (the frame then skips its value)."""
        if cls is ScalarEvent:
            key = event.value
            tag = self._tag(event)
            if tag == _STR and key not in frame[2]:
                frame[2][key] = mark
                doc.key_marks[frame[1] + (key,)] = mark
                frame[3] = key
                frame[4] = mark
                return
            self._refuse_key(event, mark, frame, depth, doc, tag)
        else:
            self._refuse_key(event, mark, frame, depth, doc)
        frame[3] = _SKIP

    def _tag(self, event) -> str:
        """The tag of a scalar, resolved as go-yaml does when it has none (a quoted one is a string)."""
        tag = event.tag
        if tag is None or tag == "!":
            tag = _STR if not event.implicit[0] else resolve(event.value)[0]
        return tag

    def _node(self, event, cls, mark: Mark, loc: Loc, doc: Document, stack: list[list]):
        """The value an event starts: a scalar, or an empty collection opened on the stack."""
        if cls is ScalarEvent:
            return self._scalar(event, mark, loc, doc)
        if cls is MappingStartEvent:
            value: dict | list = {}
            stack.append([value, loc, {}, _WANT_KEY, None])
        else:  # SequenceStartEvent
            value = []
            stack.append([value, loc])
        return value

    def _scalar(self, event, mark: Mark, loc: Loc, doc: Document):
        if not event.style and event.end_mark.line > event.start_mark.line:
            self._list_item_in_a_value(event, doc)
        text = event.value
        if (event.tag is None or event.tag == "!") and event.implicit[0]:  # plain: go-yaml's type and value
            tag, value = resolve(text)
            if tag != _MERGE:
                return value
            return self._unsupported(tag, mark, loc, doc)
        tag = self._tag(event)
        if tag == _STR or tag == _TIMESTAMP:
            return text
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return text.lower() in ("yes", "true", "on", "y")
        if tag == _INT or tag == _FLOAT:
            return self._number(tag, text, mark, loc, doc)
        return self._unsupported(tag, mark, loc, doc)

    def _unsupported(self, tag: str, mark: Mark, loc: Loc, doc: Document) -> None:
        doc.problems.append(error(mark, f"YAML tag {tag!r} is not supported; remove the tag and write a plain value"))
        doc.reported.add(loc)
        return None

    def _refuse_key(self, event, mark: Mark, frame: list, depth: int, doc: Document, tag=None):
        """Report a key that is not a plain string (its collection, if any, is read past)."""
        loc = frame[1]
        where = f"{field_path(loc)}: " if loc else ""
        if tag is None:
            doc.problems.append(error(mark, f"{where}mapping keys must be plain strings"))
            self._skip(depth)
        elif tag == _MERGE:
            doc.problems.append(error(mark, f"{where}merge keys (<<) are not allowed; write the keys out in full"))
        elif tag == _STR:
            key = event.value
            first = frame[2][key]
            doc.problems.append(error(mark, f"{where}duplicate key {key!r} (first set at line {first.line}, "
                                            f"column {first.column}); keep one"))
        else:
            key = event.value
            kind = _KIND_WORDS.get(tag.rsplit(":", 1)[-1], "not a string")
            doc.problems.append(error(mark, f"{where}key {key!r} is read by YAML 1.1 as {kind}, "
                                            f'not a string; quote it: "{key}"'))

    def _number(self, tag: str, text: str, mark: Mark, loc: Loc, doc: Document):
        """An int or float as PyYAML's SafeConstructor reads it (the loader is one)."""
        node = ScalarNode(tag, text)
        try:
            if tag == _INT:
                return self.loader.construct_yaml_int(node)
            return self.loader.construct_yaml_float(node)
        except (ValueError, ArithmeticError, IndexError):
            doc.problems.append(error(mark, f"cannot read number {text!r}"))
            doc.reported.add(loc)
            return None

    def _list_item_in_a_value(self, event, doc: Document) -> None:
        """A plain value that runs on to a line starting with '- ': YAML folds that line into
        the value (`- python` with ` - train.py` indented one space more is the one item
        'python - train.py'), where the writer almost always meant another list item."""
        if self._lines is None:
            self._lines = source_lines(self.text)
        start = event.start_mark
        first = self._lines[start.line][:start.column].rstrip()
        for index in range(start.line + 1, event.end_mark.line + 1):
            line = self._lines[index]
            stripped = line.lstrip(" ")
            if stripped != "-" and not stripped.startswith("- "):
                continue
            column = len(line) - len(stripped)
            value = event.value if len(event.value) <= 60 else event.value[:57] + "..."
            fix = (f"indent it as the item above it ({len(first) - 1} spaces)" if first.endswith("-")
                   else "put the list under a key of its own")
            doc.problems.append(warning(Mark(self.shown, index + 1, column + 1),
                                        f"this '- ' continues the plain value above it, which YAML reads as the "
                                        f"one value {value!r}, not as a list item; {fix}, or quote the value if "
                                        "the dash belongs to it"))
            return
