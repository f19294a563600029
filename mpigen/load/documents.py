"""Load: files -> YAML documents as plain data, with the position of every key and value.

YAML is read with YAML 1.1 rules, as kubectl and the API server read manifests, so
`on`, `yes` and `0755` mean for mpigen what they mean for Kubernetes. Aliases are
refused (they buy nothing in a blueprint and make alias bombs possible), and so are
duplicate keys, custom tags, deep nesting and oversized or binary files.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mpigen.errors import Diagnostic, InputError, Mark, error

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
YAML_SUFFIXES = (".yaml", ".yml")

Loc = tuple  # a path into a document: ("spec", "datasets", 0, "name")


def value_at(data: Any, loc: Loc, default=None):
    """The value at loc (keys, and list indexes) in data, or default when the path does not
    lead anywhere."""
    node = data
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return default
    return node


@dataclass
class Document:
    """One YAML document: plain data plus the marks of every key and value in it."""

    path: str
    data: Any
    start: Mark
    key_marks: dict[Loc, Mark] = field(default_factory=dict)
    value_marks: dict[Loc, Mark] = field(default_factory=dict)
    # Problems found while reading (duplicate or non-string keys, tags), and the locations
    # they cover, so that later stages do not report the same place twice.
    problems: list[Diagnostic] = field(default_factory=list)
    reported: set[Loc] = field(default_factory=set)

    def get(self, loc: Loc, default=None):
        return value_at(self.data, loc, default)

    def covered(self, loc: Loc) -> bool:
        return any(tuple(loc[:n]) in self.reported for n in range(len(loc) + 1))

    def value_mark(self, loc: Loc) -> Mark:
        """Where the value at loc is written, or the nearest enclosing value."""
        return self._nearest(self.value_marks, loc)

    def key_mark(self, loc: Loc) -> Mark:
        """Where the key of loc is written (its list item for list entries)."""
        return self._nearest(self.key_marks, loc)

    def _nearest(self, marks: dict[Loc, Mark], loc: Loc) -> Mark:
        for end in range(len(loc), 0, -1):
            mark = marks.get(tuple(loc[:end]))
            if mark is not None:
                return mark
        return self.start


def display_path(path: Path) -> str:
    """The path as it appears in messages and in output: relative to the working folder
    when it lies below it (so output bytes do not depend on where the repo is checked out)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path.as_posix()
    if rel.startswith(".."):
        return path.as_posix()
    return Path(rel).as_posix()


class Unreadable(InputError):
    """An input that cannot be read at all (missing, a broken link, no permission, not a
    regular file or folder). Unlike a file that was read and is not YAML, it is never
    skipped: dropping it would drop its jobs from the output, and GitOps would prune them."""

    missing = False  # nothing at all at the path (not even a broken link)


# What a user can do about an input mpigen cannot read, by where the input comes from.
NAMED = "or leave it off the command line"
SEARCHED = "or move it out of the searched folder"
WORKING_FOLDER = "or run mpigen in another folder"  # mpigen.yaml, read from the working folder

_SPECIAL = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
            (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def stat_input(path: Path, shown: str, fix: str = NAMED) -> os.stat_result:
    """The status of an input path (links followed), a regular file or a folder; else
    Unreadable, saying why and how to fix it (`fix` completes "make it readable (chmod)
    ..."). Nothing is opened, so a FIFO or a device cannot block or be woken up.
    Unreadable.missing tells a path that does not exist from one that cannot be read."""
    try:
        status = os.stat(path)
    except OSError as exc:
        problem = Unreadable([error(Mark(shown), _stat_problem(path, exc, fix))])
        problem.missing = exc.errno == errno.ENOENT and not os.path.islink(path)
        raise problem
    mode = status.st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise Unreadable([error(Mark(shown), special_problem(mode, fix))])
    return status


def special_problem(mode: int, fix: str) -> str:
    kind = next((name for test, name in _SPECIAL if test(mode)), "a special file")
    return f"is {kind}, not a regular file or folder; use a regular file {fix}"


def _stat_problem(path: Path, exc: OSError, fix: str) -> str:
    if exc.errno == errno.ELOOP or (exc.errno == errno.ENOENT and os.path.islink(path)):
        return "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    return unreadable_problem("path", exc, fix)


def unreadable_problem(what: str, exc: OSError, fix: str) -> str:
    """'cannot read file: Permission denied; make it readable (chmod a+r) or ...'; what is
    "file", "folder", or "path" (a folder above it cannot be searched)."""
    reason = exc.strerror or str(exc)
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return f"cannot read {what}: {reason}"
    if what == "path":
        return f"cannot reach it: {reason}; make the folders above it searchable (chmod a+x) {fix}"
    return f"cannot read {what}: {reason}; make it readable (chmod {'a+rx' if what == 'folder' else 'a+r'}) {fix}"


def read_text(path: Path, shown: str, fix: str = NAMED) -> str:
    """The file's text, or an InputError that says why it cannot be read as YAML
    (Unreadable when it cannot be read at all)."""
    if stat.S_ISDIR(stat_input(path, shown, fix).st_mode):
        raise InputError([error(Mark(shown), "is a folder where a file was expected")])
    try:
        # O_NONBLOCK: should the path become a FIFO after the check above, reading it
        # ends at once instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Unreadable([error(Mark(shown), unreadable_problem("file", exc, fix))])
    with open(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise Unreadable([error(Mark(shown), special_problem(mode, fix))])
        try:
            raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise Unreadable([error(Mark(shown), unreadable_problem("file", exc, fix))])
    if len(raw) > MAX_FILE_BYTES:
        raise InputError([error(Mark(shown), f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; "
                                              "a blueprint is a short YAML file")])
    nul = raw.find(b"\0")
    if nul >= 0:
        raise InputError([error(_byte_mark(raw, nul, shown), "binary file (contains a NUL byte); expected a UTF-8 YAML file")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError([error(_byte_mark(raw, exc.start, shown),
                                "file is not valid UTF-8; save it as UTF-8 text")])
    return text[1:] if text.startswith("\ufeff") else text


def input_exists(path: Path, shown: str, fix: str = NAMED) -> bool:
    """Whether there is anything at path (a broken link included); Unreadable when that
    cannot be known (a folder on the way that may not be searched)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise Unreadable([error(Mark(shown), unreadable_problem("path", exc, fix))])
    return True


def _byte_mark(raw: bytes, offset: int, shown: str) -> Mark:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return Mark(shown, line, column)


_LOADERS: dict = {}


def _loader_class():
    """PyYAML's safe loader (libyaml's parser when available) with the YAML 1.1 scalars
    that PyYAML leaves out but Kubernetes' reader (go-yaml v2) resolves: y/Y/n/N are
    booleans, and 1e3 (an exponent without a dot) is a number. So a value means for
    mpigen what it means for kubectl."""
    import yaml

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    if base not in _LOADERS:
        import re

        class Loader(base):
            pass

        Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
        Loader.add_implicit_resolver("tag:yaml.org,2002:float",
                                     re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
                                     list("-+0123456789"))
        _LOADERS[base] = Loader
    return _LOADERS[base]


def parse(text: str, shown: str) -> list[Document]:
    """Every document of a YAML text, as plain data with marks. Raises InputError when the
    text is not YAML at all; problems inside a document are kept on it (Document.problems)
    so that the rest of it is still checked.

    PyYAML's event stream (from libyaml when PyYAML has it) is turned straight into plain
    data and marks by an iterative composer, so that no input can exhaust the stack."""
    import yaml

    loader_class = _loader_class()
    try:
        loader = loader_class(text)
    except UnicodeEncodeError:  # the C reader encodes to UTF-8: a lone surrogate cannot be
        raise InputError([_reader_error(text, shown, None)])
    except yaml.reader.ReaderError as exc:
        raise InputError([_reader_error(text, shown, exc)])
    try:
        return _Composer(loader, shown).documents()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = _yaml_message(exc)
        raise InputError([error(_mark(mark, shown) if mark else Mark(shown), message)])
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
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    text = problem if not context else f"{problem} ({context})" if problem else context
    return f"invalid YAML: {text}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# Characters YAML does not allow in a stream (PyYAML's Reader.NON_PRINTABLE; libyaml's
# reader refuses the same set).
_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _reader_error(text: str, shown: str, exc) -> Diagnostic:
    """A character YAML refuses, at its position. libyaml reports a byte offset and PyYAML a
    character index, so the character is looked up again here for one answer from both."""
    import re

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


def field_path(loc: Loc) -> str:
    """A location as users write it in messages: spec.datasets[0].name."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_WANT_KEY = object()  # a mapping frame waiting for its next key
_SKIP = object()      # ... whose current key was refused: its value is read but not kept


class _Composer:
    """Events -> Documents, with an explicit stack instead of recursion.

    Depth counts every node, scalars and keys included, the root being at depth 1; a node
    deeper than MAX_DEPTH is an error at that node. The value of a refused key (duplicate,
    non-string, merge) is still read, for aliases and depth, but nothing of it is kept."""

    def __init__(self, loader, shown: str):
        from yaml import events
        from yaml.nodes import ScalarNode

        self.loader = loader
        self.shown = shown
        self.events = events
        self.ScalarNode = ScalarNode

    def documents(self) -> list[Document]:
        events = self.events
        get_event = self.loader.get_event
        get_event()  # StreamStartEvent
        docs = []
        while get_event().__class__ is not events.StreamEndEvent:  # a DocumentStartEvent
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
        events = self.events
        get_event = self.loader.get_event
        ends = (events.MappingEndEvent, events.SequenceEndEvent)
        scalar, alias = events.ScalarEvent, events.AliasEvent
        open_ = 1
        while open_:
            event = get_event()
            cls = event.__class__
            if cls in ends:
                open_ -= 1
                depth -= 1
                continue
            if cls is alias:
                raise self._alias(event)
            if depth + 1 > MAX_DEPTH:
                raise self._too_deep(event)
            if cls is not scalar:
                open_ += 1
                depth += 1

    def document(self) -> Document:
        events = self.events
        ScalarEvent, AliasEvent = events.ScalarEvent, events.AliasEvent
        MappingStartEvent, DocumentEndEvent = events.MappingStartEvent, events.DocumentEndEvent
        MappingEndEvent, SequenceEndEvent = events.MappingEndEvent, events.SequenceEndEvent
        get_event = self.loader.get_event
        resolve = self.loader.resolve
        ScalarNode = self.ScalarNode
        shown = self.shown

        doc = Document(shown, None, Mark(shown))
        key_marks, value_marks, problems = doc.key_marks, doc.value_marks, doc.problems
        # Open collections: [dict, loc, first key marks, key | _WANT_KEY | _SKIP, key mark]
        # or [list, loc].
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
            value_mark = mark
            if stack:
                frame = stack[-1]
                parent = frame[0]
                if parent.__class__ is dict:
                    key = frame[3]
                    if key is _WANT_KEY:
                        if cls is ScalarEvent:
                            key = event.value
                            tag = event.tag
                            if tag is None or tag == "!":
                                tag = _STR if not event.implicit[0] else resolve(ScalarNode, key, event.implicit)
                            if tag == _STR and key not in frame[2]:
                                frame[2][key] = mark
                                key_marks[frame[1] + (key,)] = mark
                                frame[3] = key
                                frame[4] = mark
                                continue
                            self._refuse_key(event, mark, frame, depth, doc, tag)
                        else:
                            self._refuse_key(event, mark, frame, depth, doc)
                        frame[3] = _SKIP
                        continue
                    frame[3] = _WANT_KEY
                    if key is _SKIP:
                        if cls is not ScalarEvent:
                            self._skip(depth)
                        continue
                    loc = frame[1] + (key,)
                    if cls is ScalarEvent and not event.style and event.value == "":
                        value_mark = frame[4]  # `key:` with nothing after it
                else:
                    loc = frame[1] + (len(parent),)
                    key_marks[loc] = mark
            else:
                parent = None
                loc = ()
                doc.start = mark
            value_marks[loc] = value_mark

            if cls is ScalarEvent:
                tag = event.tag
                text = event.value
                if tag is None or tag == "!":
                    tag = _STR if not event.implicit[0] else resolve(ScalarNode, text, event.implicit)
                if tag == _STR or tag == _TIMESTAMP:
                    value = text
                elif tag == _NULL:
                    value = None
                elif tag == _BOOL:
                    value = text.lower() in ("yes", "true", "on", "y")
                elif tag == _INT or tag == _FLOAT:
                    value = self._number(tag, text, mark, loc, doc)
                else:
                    problems.append(error(mark, f"YAML tag {tag!r} is not supported; remove the tag and write a plain value"))
                    doc.reported.add(loc)
                    value = None
            elif cls is MappingStartEvent:
                value = {}
                stack.append([value, loc, {}, _WANT_KEY, None])
            else:  # SequenceStartEvent
                value = []
                stack.append([value, loc])

            if parent is None:
                doc.data = value
            elif parent.__class__ is dict:
                parent[loc[-1]] = value
            else:
                parent.append(value)

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
        node = self.ScalarNode(tag, text)
        try:
            if tag == _INT:
                return self.loader.construct_yaml_int(node)
            return self.loader.construct_yaml_float(node)
        except (ValueError, ArithmeticError, IndexError):
            doc.problems.append(error(mark, f"cannot read number {text!r}"))
            doc.reported.add(loc)
            return None


BLUEPRINT_KIND = "MPIJobBlueprint"
API_GROUP = "mpigen.dev"
# Kinds of mpigen's own that may sit beside blueprints and are not blueprints.
OTHER_KINDS = ("Overlay", "Config")


def find_yaml_files(paths: list[Path]) -> tuple[list[tuple[Path, bool]], list[Diagnostic]]:
    """Files to read, each with whether the user named it directly. Folders are searched
    recursively for *.yaml/*.yml (hidden folders skipped), in a fixed order so that output
    never depends on the file system's listing order. What cannot be read is an error,
    never skipped: a folder that cannot be listed, a file that cannot be reached, and a
    FIFO, socket or device (never opened: that could block). Symbolic links met in a search
    are refused where they could loop or leave the repository: a link to a folder, a link
    that leads nowhere, and a link to a file outside both the searched folder and the
    working folder."""
    found: list[tuple[Path, bool]] = []
    problems: list[Diagnostic] = []
    seen: set[str] = set()
    for path in paths:
        try:
            status = stat_input(path, display_path(path))
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        files = _search(path, problems) if stat.S_ISDIR(status.st_mode) else [(path, True)]
        for file, named in files:
            if file.as_posix() not in seen:
                seen.add(file.as_posix())
                found.append((file, named))
    return found, problems


def _search(folder: Path, problems: list[Diagnostic]) -> list[tuple[Path, bool]]:
    """The regular *.yaml/*.yml files below folder, in path order; what cannot be read, or
    is not a regular file, goes to problems."""
    def cannot_list(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else folder
        problems.append(error(Mark(display_path(where)), unreadable_problem("folder", exc, SEARCHED)))

    files = []
    for root, dirs, names in os.walk(folder, onerror=cannot_list, followlinks=False):
        for d in dirs:
            if not d.startswith(".") and os.path.islink(os.path.join(root, d)):
                problems.append(error(Mark(display_path(Path(root, d))),
                                      "a symbolic link to a folder: mpigen does not follow them (they can "
                                      "loop or lead out of the repository); name the folder itself"))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(root, d)))
        files.extend(Path(root, n) for n in names if n.endswith(YAML_SUFFIXES) and not n.startswith("."))
    bounds = (folder.resolve(), Path.cwd().resolve())
    out = []
    for file in sorted(files, key=lambda p: p.as_posix()):
        try:
            mode = os.lstat(file).st_mode
            if stat.S_ISLNK(mode):
                problem = _link_problem(file, bounds)
                if problem:
                    problems.append(error(Mark(display_path(file)), problem))
                    continue
                mode = stat_input(file, display_path(file), SEARCHED).st_mode
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        except OSError as exc:
            problems.append(error(Mark(display_path(file)), unreadable_problem("path", exc, SEARCHED)))
            continue
        if stat.S_ISREG(mode):
            out.append((file, False))
        elif not stat.S_ISDIR(mode):  # (a name os.walk could not tell was a folder, now one: not a file)
            problems.append(error(Mark(display_path(file)), special_problem(mode, SEARCHED)))
    return out


def _link_problem(file: Path, bounds: tuple[Path, ...]) -> str | None:
    try:
        target = file.resolve(strict=True)
    except (OSError, RuntimeError):  # nowhere, or a loop
        return "a symbolic link that leads nowhere (or in a loop); remove it or fix its target"
    if not any(target == b or b in target.parents for b in bounds):
        return (f"a symbolic link to {target.as_posix()}, outside the searched folder and the repository; "
                "copy the file in, or name it on the command line")
    return None


def load_blueprints(paths: list[Path]) -> tuple[list[Document], list[Diagnostic]]:
    """Every blueprint document under paths, and the problems and warnings found on the way.
    Nothing is raised: a broken file does not stop the others from being checked, so that
    one run reports every problem."""
    files, problems = find_yaml_files(paths)
    blueprints, found = load_files(files)
    return blueprints, problems + found


def load_files(files: list[tuple[Path, bool]]) -> tuple[list[Document], list[Diagnostic]]:
    """The blueprint documents of these files (from find_yaml_files), and the problems."""
    problems: list[Diagnostic] = []
    blueprints: list[Document] = []
    for path, named in files:
        shown = display_path(path)
        try:
            text = read_text(path, shown, NAMED if named else SEARCHED)
            docs = parse(text, shown)
        except Unreadable as exc:
            problems.extend(exc.diagnostics)
            continue
        except InputError as exc:
            if named or _looks_like_a_blueprint(path):
                problems.extend(exc.diagnostics)
            else:
                problems.extend(Diagnostic(d.mark, d.message + "; skipped (not recognisable as a blueprint)",
                                           "warning") for d in exc.diagnostics)
            continue
        mine = 0
        for doc in docs:
            data = doc.data
            kind = data.get("kind") if isinstance(data, dict) else None
            api = data.get("apiVersion") if isinstance(data, dict) else None
            if kind == BLUEPRINT_KIND:
                blueprints.append(doc)
                mine += 1
            elif isinstance(api, str) and api.split("/")[0] == API_GROUP and kind not in OTHER_KINDS:
                problems.append(error(doc.value_mark(("kind",)) if kind is not None else doc.start,
                                      f"unknown kind {kind!r} for apiVersion {api}; expected kind: {BLUEPRINT_KIND}"))
                mine += 1
        if named and mine == 0:
            first = docs[0] if docs else None
            mark = Mark(shown) if first is None else (
                first.value_mark(("kind",)) if isinstance(first.data, dict) and "kind" in first.data else first.start)
            problems.append(error(mark, f"not a blueprint: no document has kind: {BLUEPRINT_KIND} "
                                        f"(apiVersion: {API_GROUP}/v1alpha1)"))
    return blueprints, problems


def _looks_like_a_blueprint(path: Path) -> bool:
    """Whether a file that is not valid YAML mentions mpigen's API group or kind (it was
    read once already: it is a regular, readable file)."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return True  # it changed under us: report the problem rather than skip the file
    return API_GROUP in text or BLUEPRINT_KIND in text
