"""Load: files -> YAML documents as plain data, with the position of every key and value.

YAML is read with YAML 1.1 rules, as kubectl and the API server read manifests, so
`on`, `yes` and `0755` mean for mpigen what they mean for Kubernetes. Aliases are
refused (they buy nothing in a blueprint and make alias bombs possible), and so are
duplicate keys, custom tags, deep nesting and oversized or binary files.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mpigen.errors import Diagnostic, InputError, Mark, error

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
YAML_SUFFIXES = (".yaml", ".yml")

Loc = tuple  # a path into a document: ("spec", "datasets", 0, "name")


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


def _yaml():
    from ruamel.yaml import YAML
    from ruamel.yaml.composer import Composer, ComposerError
    from ruamel.yaml.events import AliasEvent

    class NoAliasComposer(Composer):
        def compose_node(self, parent, index):
            if self.parser.check_event(AliasEvent):
                event = self.parser.get_event()
                raise ComposerError(
                    None, None,
                    f"aliases are not allowed in mpigen files (found *{event.anchor}); "
                    "write the value out in full",
                    event.start_mark,
                )
            return super().compose_node(parent, index)

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 1)
    yaml.max_depth = MAX_DEPTH
    yaml.Composer = NoAliasComposer
    return yaml


_YAML = None


def _shared_yaml():
    global _YAML
    if _YAML is None:
        _YAML = _yaml()
    return _YAML


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


def read_text(path: Path, shown: str) -> str:
    """The file's text, or an InputError that says why it cannot be read as YAML."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except IsADirectoryError:
        raise InputError([error(Mark(shown), "is a folder where a file was expected")])
    except OSError as exc:
        raise InputError([error(Mark(shown), f"cannot read file: {exc.strerror or exc}")])
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


def _byte_mark(raw: bytes, offset: int, shown: str) -> Mark:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return Mark(shown, line, column)


def parse(text: str, shown: str) -> list[Document]:
    """Every document of a YAML text, as plain data with marks. Raises InputError when the
    text is not YAML at all; problems inside a document are kept on it (Document.problems)
    so that the rest of it is still checked."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = _shared_yaml()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nodes = list(yaml.compose_all(io.StringIO(text)))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = _yaml_message(exc)
        raise InputError([error(_mark(mark, shown) if mark else Mark(shown), message)])
    except YAMLError as exc:
        raise InputError([error(Mark(shown), f"invalid YAML: {exc}")])
    except RecursionError:
        raise InputError([error(Mark(shown), f"nesting is deeper than {MAX_DEPTH} levels")])
    docs = []
    for node in nodes:
        if node is None:
            continue
        doc = Document(shown, None, _mark(node.start_mark, shown))
        doc.data = _convert(node, (), doc)
        docs.append(doc)
    return docs


def load_file(path: Path) -> list[Document]:
    shown = display_path(path)
    return parse(read_text(path, shown), shown)


def _yaml_message(exc) -> str:
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    if "maximum depth" in problem:
        return f"nesting is deeper than {MAX_DEPTH} levels"
    if problem.startswith("aliases are not allowed"):
        return problem
    text = problem if not context else f"{problem} ({context})" if problem else context
    return f"invalid YAML: {text}"


def _mark(mark, shown: str) -> Mark:
    return Mark(shown, mark.line + 1, mark.column + 1)


_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


_KIND_WORDS = {"bool": "a boolean", "int": "an integer", "float": "a number", "null": "null",
               "timestamp": "a date"}


def field_path(loc: Loc) -> str:
    """A location as users write it in messages: spec.datasets[0].name."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _convert(node, loc: Loc, doc: Document) -> Any:
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    problems = doc.problems
    if loc not in doc.value_marks:  # an empty value is marked at its key (set by the caller)
        doc.value_marks[loc] = _mark(node.start_mark, doc.path)
    if isinstance(node, MappingNode):
        result: dict[str, Any] = {}
        first_seen: dict[str, Mark] = {}
        for key_node, value_node in node.value:
            key_mark = _mark(key_node.start_mark, doc.path)
            where = f"{field_path(loc)}: " if loc else ""
            if not isinstance(key_node, ScalarNode) or key_node.tag not in (_STR, _MERGE):
                if isinstance(key_node, ScalarNode):
                    kind = _KIND_WORDS.get(key_node.tag.rsplit(":", 1)[-1], "not a string")
                    problems.append(error(key_mark, f"{where}key {key_node.value!r} is read by YAML 1.1 as {kind}, "
                                                    f'not a string; quote it: "{key_node.value}"'))
                else:
                    problems.append(error(key_mark, f"{where}mapping keys must be plain strings"))
                continue
            if key_node.tag == _MERGE:
                problems.append(error(key_mark, f"{where}merge keys (<<) are not allowed; write the keys out in full"))
                continue
            key = key_node.value
            if key in first_seen:
                first = first_seen[key]
                problems.append(error(key_mark, f"{where}duplicate key {key!r} (first set at line {first.line}, "
                                                f"column {first.column}); keep one"))
                continue
            first_seen[key] = key_mark
            child = loc + (key,)
            doc.key_marks[child] = key_mark
            if isinstance(value_node, ScalarNode) and value_node.value == "" and value_node.style is None:
                doc.value_marks[child] = key_mark  # `key:` with nothing after it
            result[key] = _convert(value_node, child, doc)
        return result
    if isinstance(node, SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            child = loc + (index,)
            doc.key_marks[child] = _mark(item.start_mark, doc.path)
            items.append(_convert(item, child, doc))
        return items
    return _scalar(node, loc, doc)


def _scalar(node, loc: Loc, doc: Document) -> Any:
    tag = node.tag
    value = node.value
    if tag == _STR or tag == "tag:yaml.org,2002:timestamp":
        return value
    if tag == "tag:yaml.org,2002:null":
        return None
    if tag == "tag:yaml.org,2002:bool":
        return value.lower() in ("yes", "true", "on", "y")
    if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        yaml = _shared_yaml()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if tag.endswith("int"):
                    return yaml.constructor.construct_yaml_int(node)
                return yaml.constructor.construct_yaml_float(node)
            except (ValueError, ArithmeticError):
                doc.problems.append(error(_mark(node.start_mark, doc.path), f"cannot read number {value!r}"))
                doc.reported.add(loc)
                return None
    doc.problems.append(error(_mark(node.start_mark, doc.path),
                              f"YAML tag {tag!r} is not supported; remove the tag and write a plain value"))
    doc.reported.add(loc)
    return None


BLUEPRINT_KIND = "MPIJobBlueprint"
API_GROUP = "mpigen.dev"
# Kinds of mpigen's own that may sit beside blueprints and are not blueprints.
OTHER_KINDS = ("Overlay", "Config")


def find_yaml_files(paths: list[Path]) -> tuple[list[tuple[Path, bool]], list[Diagnostic]]:
    """Files to read, each with whether the user named it directly. Folders are searched
    recursively for *.yaml/*.yml (hidden folders skipped, symlinked folders not followed),
    in a fixed order so that output never depends on the file system's listing order."""
    found: list[tuple[Path, bool]] = []
    problems: list[Diagnostic] = []
    seen: set[str] = set()
    for path in paths:
        if path.is_dir():
            files = []
            for root, dirs, names in os.walk(path, followlinks=False):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                files.extend(Path(root, n) for n in names if n.endswith(YAML_SUFFIXES) and not n.startswith("."))
            for file in sorted(files, key=lambda p: p.as_posix()):
                if file.is_file() and file.as_posix() not in seen:
                    seen.add(file.as_posix())
                    found.append((file, False))
        elif path.exists():
            if path.as_posix() not in seen:
                seen.add(path.as_posix())
                found.append((path, True))
        else:
            problems.append(error(Mark(display_path(path)), "no such file or folder"))
    return found, problems


def load_blueprints(paths: list[Path]) -> tuple[list[Document], list[Diagnostic]]:
    """Every blueprint document under paths, and the problems and warnings found on the way.
    Nothing is raised: a broken file does not stop the others from being checked, so that
    one run reports every problem."""
    files, problems = find_yaml_files(paths)
    blueprints: list[Document] = []
    for path, named in files:
        shown = display_path(path)
        try:
            text = read_text(path, shown)
            docs = parse(text, shown)
        except InputError as exc:
            if named or API_GROUP in _peek(path) or BLUEPRINT_KIND in _peek(path):
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


def _peek(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
