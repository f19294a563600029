"""Emit: Kubernetes objects -> deterministic YAML bytes.

The output is a contract with Git, so nothing here depends on dict insertion order,
hash seeds, time or locale (the order of objects: mpigen.emit.install_order):
- keys are sorted, except that apiVersion, kind and metadata lead an object, name and
  namespace lead metadata, and name leads a list entry (as kubectl shows them);
  lists keep their order (containers, env, args and volumes are order-significant);
- strings that YAML 1.1 (kubectl, go-yaml) or YAML 1.2 would read as anything but a
  string are double-quoted; scripts and hostfiles are literal blocks; no anchors, no
  flow style except {} and [], no line folding, LF endings, a final newline.

The emitter handles exactly the JSON data model (dict, list, str, int, bool, None),
which is all a Kubernetes object is; that is why it is a page of code and not a YAML
library: it is several times faster than a general emitter and its bytes never change
with a library upgrade. Tests read its output back with PyYAML (YAML 1.1) and
ruamel.yaml (YAML 1.2) and compare.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

# --- scalars -----------------------------------------------------------------------------

# Plain scalars YAML 1.1 resolves to a non-string (yaml.org/type: bool, null, int, float,
# merge, value, timestamp) and the YAML 1.2 core schema adds (0o17, 1e3, .Inf); and, to be
# safe with lenient readers (ruamel reads "-_" as an int), anything made of digits, '_',
# '.' and ':' alone.
_NON_STRING = re.compile(r"""^(?:
    y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
  | ~|null|Null|NULL
  | [-+]?0b[0-1_]+ | [-+]?0[0-7_]+ | [-+]?(?:0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+ | [-+]?0o[0-7]+
  | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
  | [-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)? | [-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+
  | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
  | << | =
  | [-+]?[0-9_.:]*
  | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9].*)?
)$""", re.VERBOSE)
# Characters that may stand in a plain scalar here: printable ASCII without the YAML
# indicators that matter inside a scalar; the first character is checked separately.
_PLAIN = re.compile(r"^[A-Za-z0-9_./^$=+~()<>%@`!?;,\[\]{}*&|'\"\\-][A-Za-z0-9 _./:^$=+~()<>%@`!?;,\[\]{}*&|'\"\\#-]*$")
_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")


def _is_plain(value: str) -> bool:
    if not value or value != value.strip() or not _PLAIN.match(value):
        return False
    first = value[0]
    if first in _BAD_START:
        # "-np", "--mca": a dash followed by a non-space character starts a plain scalar.
        if not (first == "-" and len(value) > 1 and value[1] not in " -" and not value.startswith("---")):
            if not (value.startswith("--") and len(value) > 2 and value[2] not in " -"):
                return False
    if ": " in value or " #" in value or value.endswith(":"):
        return False
    if _NON_STRING.match(value) or _number_like(value):
        return False
    return True


# How a text that Python's float() or Go's strconv reads as a number may begin (signs, digits,
# a point, inf, infinity and nan in any case; 0x, 0o and 0b begin with a digit). Asked only of
# ASCII text (_PLAIN), so Python's other Unicode digits do not arise.
_NUMBER_START = frozenset("+-.0123456789iInN")


def _number_like(value: str) -> bool:
    """What Go's strconv (go-yaml v2, used by kubectl) would still read as a number."""
    text = value.replace("_", "")
    if text[:1] not in _NUMBER_START:
        return False  # most strings: names, paths, flags
    try:
        float(text)
        return True
    except ValueError:
        pass
    low = text.lower().lstrip("+-")
    return low.startswith(("0x", "0o", "0b")) or low in ("inf", "infinity", "nan")


def _printable(ch: str) -> bool:
    # YAML c-printable, minus the line breaks and BOM that readers treat specially.
    code = ord(ch)
    if 0x20 <= code <= 0x7E:
        return True
    if code < 0xA0:
        return False
    if code in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF):
        return False
    return True


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def _quoted(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif _printable(ch):
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


# In a literal block: no trailing spaces or tabs on any line, and only characters that
# read back as themselves (tab, printable, not the line breaks and BOM readers treat specially).
_LITERAL_BAD = re.compile("[ \t]\n|[ \t]\\Z|[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe"
                          "\uff00-\ufffd\U00010000-\U0010ffff]")


def _literal_ok(value: str) -> bool:
    """A multi-line string that reads back byte for byte as a literal block."""
    if "\n" not in value or value[0] in " \t\n":
        return False
    return not _LITERAL_BAD.search(value)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, float):
        raise TypeError("floats are not emitted; write Kubernetes quantities as strings")
    raise TypeError(f"cannot emit {type(value).__name__}")


# Rendered objects repeat the same strings (names, label keys, scripts) over and over, and
# deciding how to write a string is the costly part of emitting, so each decision is kept.
# The caches only ever map a string to its one correct form: they cannot change output.
# Each is emptied when it holds this many: the strings that repeat are back in it at once,
# while those of one job alone (pod names) never hold more than a few MiB of a worker.
_CACHE_LIMIT = 20_000
_strings: dict[str, str] = {}
_values: dict[tuple[str, str], str] = {}
_keys: dict[str, str] = {}


def _string(value: str) -> str:
    text = _strings.get(value)
    if text is None:
        text = value if _is_plain(value) else _quoted(value)
        if len(_strings) > _CACHE_LIMIT:
            _strings.clear()
        _strings[value] = text
    return text


def _string_value(value: str, indent: str) -> str:
    """What follows `key:` or `-` for a string: ` text` or a literal block."""
    text = _values.get((value, indent))
    if text is None:
        if _literal_ok(value):
            trailing = len(value) - len(value.rstrip("\n"))
            chomp = "-" if trailing == 0 else "" if trailing == 1 else "+"
            body = value[:-1] if trailing else value
            inner = indent + "  "
            text = f" |{chomp}\n" + "".join(f"{inner}{line}\n" if line else "\n" for line in body.split("\n"))
        else:
            text = f" {_string(value)}\n"
        if len(_values) > _CACHE_LIMIT:
            _values.clear()
        _values[(value, indent)] = text
    return text


def _key(key: str) -> str:
    text = _keys.get(key)
    if text is None:
        if not isinstance(key, str):
            raise TypeError(f"mapping key {key!r} is not a string")
        text = _string(key) + ":"
        if len(_keys) > _CACHE_LIMIT:
            _keys.clear()
        _keys[key] = text
    return text


# --- structure ---------------------------------------------------------------------------

_OBJECT_HEAD = ("apiVersion", "kind", "metadata")
_META_HEAD = ("name", "namespace")
_HEADS = {"object": _OBJECT_HEAD, "metadata": _META_HEAD, "item": ("name",), "plain": ()}


_orders: dict[tuple, list] = {}


def _ordered_keys(mapping: dict, role: str) -> list:
    """The keys in output order; objects of one kind share their key sets, so each order
    is worked out once."""
    shape = (role, *mapping)
    keys = _orders.get(shape)
    if keys is None:
        keys = sorted(mapping)
        lead = [k for k in _HEADS[role] if k in mapping]
        if lead:
            keys = lead + [k for k in keys if k not in lead]
        if len(_orders) > _CACHE_LIMIT:
            _orders.clear()
        _orders[shape] = keys
    return keys


def _emit_value(value: Any, indent: str, out: list[str]) -> None:
    """Append what follows `key:` or `-` for anything but a non-empty mapping."""
    kind = type(value)
    if kind is str:
        out.append(_string_value(value, indent))
    elif kind is dict:
        if value:
            raise AssertionError("non-empty mappings are emitted by _emit_mapping")
        out.append(" {}\n")
    elif kind is list:
        if not value:
            out.append(" []\n")
        else:
            out.append("\n")
            _emit_sequence(value, indent, out)
    elif isinstance(value, str):  # subclasses of the JSON types, written as the type itself
        out.append(_string_value(str(value), indent))
    elif isinstance(value, dict) and value:
        raise AssertionError("non-empty mappings are emitted by _emit_mapping")
    elif isinstance(value, (dict, list)):
        _emit_value(type(value).__mro__[-2](value), indent, out)
    else:
        out.append(f" {_scalar(value)}\n")


def _emit_mapping(mapping: dict, indent: str, out: list[str], role: str, first_prefix: str | None = None) -> None:
    deeper = indent + "  "
    prefix = indent if first_prefix is None else first_prefix
    for key in _ordered_keys(mapping, role):
        value = mapping[key]
        out.append(prefix + (_keys.get(key) or _key(key)))
        prefix = indent
        kind = type(value)
        if kind is str:  # most values: what _emit_value does first, without the call
            out.append(_values.get((value, indent)) or _string_value(value, indent))
        elif kind is dict and value:
            out.append("\n")
            _emit_mapping(value, deeper, out, "metadata" if key == "metadata" else "plain")
        else:
            _emit_value(value, indent, out)


def _emit_sequence(items: list, indent: str, out: list[str]) -> None:
    # Sequences are not indented below their key (kubectl's style): "- " at the key's column.
    dash = indent + "- "
    deeper = indent + "  "
    for item in items:
        kind = type(item)
        if kind is dict and item:
            _emit_mapping(item, deeper, out, "item", first_prefix=dash)
        elif kind is str:  # as _emit_value, without the call
            out.append(indent + "-")
            out.append(_values.get((item, indent)) or _string_value(item, indent))
        elif kind is list and item:
            out.append(indent + "-\n")
            _emit_sequence(item, deeper, out)
        else:
            out.append(indent + "-")
            _emit_value(item, indent, out)


# An object's compact JSON (mpigen.kube.sizes.compact_json) takes at most this many bytes per
# byte of its document as dump_object writes it, so the document's size bounds the JSON's
# without encoding it (mpigen.render.refusals.oversized). Both write every key and string, and
# a character as the same UTF-8 bytes unless they escape it: JSON takes six bytes where this
# takes at least two (a control character: \u0000 against \0) and two where this may take
# one (`"` or a backslash, which a single-quoted or plain scalar writes as it is); a string
# costs JSON two quotes, which this writes too or, plain, where it writes a space and a line
# break around it; a key ":" and ",", against ":" and a line break here; a list item ",", against
# "- " and a line break; braces and brackets two, as `{}` and `[]` or a key and a line break
# before the first entry. No floats are written, and integers and booleans read the same.
JSON_BYTES_PER_BYTE = 3


def document_head(*comments: str | None) -> str:
    """What opens a document: `---`, then a `# comment` line for each comment given (empty ones left out)."""
    return "---\n" + "".join(f"# {comment}\n" for comment in comments if comment)


def dump_object(obj: dict, *comments: str | None) -> str:
    """One document: its head (document_head), then the object."""
    out = [document_head(*comments)]
    if obj:
        _emit_mapping(obj, "", out, "object")
    else:
        out.append("{}\n")
    return "".join(out)


def dump_stream(objects: Iterable[tuple[dict, str | None]]) -> str:
    return "".join(dump_object(obj, comment) for obj, comment in objects)
