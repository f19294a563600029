"""The index of an output folder, DIR/.mpigen-index: the files mpigen wrote there, each
with the sha256 of the bytes it wrote. mpigen overwrites or removes only files listed
in it (see mpigen.output.plan), and only while they hold those bytes (an edit by hand is
the user's: mpigen.output.changes).

Format (version 1): one JSON object, keys sorted, two-space indent, LF, a final newline:

    {
      "about": "...",
      "files": {"default/job-pi-launcher.yaml": "<sha256 hex>", ...},
      "mpigenIndex": 1
    }

JSON quotes every path, so no name can add an entry of its own (the text lines of earlier
versions could be forged with a newline in an overlay folder's name). The file is a
dotfile with no .yaml or .json ending, so that no GitOps tool mistakes it for a manifest.

Reading is defensive: an index mpigen cannot trust (a newer version, a foreign or damaged
file, one unsafe entry, a symbolic link, a file another user owns: in a folder others may
write into, anyone could list the user's own files in it) owns nothing, so nothing is
removed or overwritten on its say. Whose a file is follows git's rule
(mpigen.load.trust.user_ids: the user's, and for root run by sudo the sudoer's too).
The text lines of earlier versions (`<sha256>  <path>`) are still read, when every line
is a well-formed entry of a safe path.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mpigen.errors import shown
from mpigen.load.trust import user_ids, user_name

INDEX = ".mpigen-index"
VERSION = 1
_ABOUT = ("Files written by `mpigen render`, with the sha256 of each: mpigen overwrites and removes "
          "only these. Do not edit.")
_LEGACY_HEADER = "# Files written by `mpigen render`"
# Strings json.dumps writes as they are, in quotes: printable ASCII but " and \ (it escapes
# those two, control characters and, with ensure_ascii, anything beyond ASCII).
_PLAIN = re.compile(r"[ !#-\[\]-~]*")
_DIGEST = re.compile(r"[0-9a-f]{64}")
# Characters no file name of the output may hold: control characters (a newline
# would split a line of a listing, a terminal would obey an escape), line and paragraph
# separators, and lone surrogates (bytes of a name that are not UTF-8).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


@dataclass
class Index:
    """Path -> sha256 of the files mpigen wrote; `distrust` says why an existing index
    file was set aside (it then owns nothing)."""

    entries: dict[str, str] = field(default_factory=dict)
    distrust: str | None = None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def index_bytes(entries: Mapping[str, str]) -> bytes:
    """The index file: the bytes of json.dumps(document, indent=2, sort_keys=True,
    ensure_ascii=False), made one line per entry (json's indenting encoder holds a string
    per token: a quarter of a large render's memory); `entries` may make each digest when
    asked."""
    dumps = json.dumps
    plain = _PLAIN.fullmatch

    def quoted(text: str) -> str:
        # json.dumps of a string it need not escape is the string in quotes (most paths, and
        # every digest): that, without the call, is a third of a large index's time.
        return f'"{text}"' if plain(text) else dumps(text, ensure_ascii=False)

    paths = sorted(entries)
    fast = plain(" ".join(paths)) is not None  # every path at once: no path needs escaping
    out = bytearray(f'{{\n  "about": {dumps(_ABOUT, ensure_ascii=False)},\n  "files": '.encode("utf-8"))
    out += b"{\n" if paths else b"{}"
    for start in range(0, len(paths), _LINES):  # a few thousand lines at a time: the index is never held twice
        part = [(path, entries[path]) for path in paths[start:start + _LINES]]
        lines = [f'    "{path}": "{value}"' if fast and plain(value) else f"    {quoted(path)}: {quoted(value)}"
                 for path, value in part]
        out += (",\n" if start else "").encode() + ",\n".join(lines).encode("utf-8")
    out += b"\n  }" if paths else b""
    out += f',\n  "mpigenIndex": {VERSION}\n}}\n'.encode("utf-8")
    return bytes(out)


_LINES = 4096


def patched_index(data: bytes, changes: dict[str, tuple[str, str]]) -> bytes | None:
    """The index `data` (as index_bytes made it) with the digest of each of `changes` (path
    -> (its digest in `data`, the new one), in hex) replaced; None when an entry is not there
    once, as index_bytes writes it."""
    for path, (old, new) in changes.items():
        quoted = json.dumps(path, ensure_ascii=False)
        entry = f'\n    {quoted}: "{old}"'.encode("utf-8")
        if data.count(entry) != 1:
            return None
        data = data.replace(entry, f'\n    {quoted}: "{new}"'.encode("utf-8"))
    return data


def unsafe_name(path: str) -> str | None:
    """Why `path` may not be a file of the output folder (None when it may): it must be a
    plain relative path whose characters are all printable."""
    bad = _UNSAFE.search(path)
    if bad:
        return f"its name holds the character {shown(bad.group())}"
    padded = f"/{path}/"
    if "//" in padded or "/./" in padded or "/../" in padded or "\\" in path:
        return "it is not a plain relative path"
    return None


def read_index(out: Path) -> Index:
    """The index of `out`; empty when there is none. Raises OSError when it cannot be read."""
    try:
        fd = os.open(out / INDEX, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return Index()
    except OSError:
        if os.path.islink(out / INDEX):
            return Index(distrust="it is a symbolic link")
        raise
    with open(fd, "rb") as handle:
        status = os.fstat(handle.fileno())
        if stat.S_ISDIR(status.st_mode):
            return Index()  # the plan reports a folder in the index's way
        if not stat.S_ISREG(status.st_mode):
            return Index(distrust="it is not a file")
        if status.st_uid not in user_ids():
            return Index(distrust=f"another user, {user_name(status.st_uid)}, owns it")
        return parse_index(handle.read())


def parse_index(data: bytes) -> Index:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Index(distrust="it is not UTF-8 text")
    if text.startswith(_LEGACY_HEADER):
        return _parse_legacy(text)
    try:
        document = json.loads(text)
    except ValueError:
        return Index(distrust="it is not an index mpigen wrote")
    if not isinstance(document, dict) or "mpigenIndex" not in document:
        return Index(distrust="it is not an index mpigen wrote")
    version = document["mpigenIndex"]
    if version != VERSION or isinstance(version, bool):
        return Index(distrust=f"it has index version {json.dumps(version)}, which this mpigen does not know "
                              "(a newer mpigen wrote it?)")
    files = document.get("files")
    if not isinstance(files, dict):
        return Index(distrust="its files are not a mapping")
    if _all_safe(files):
        return Index(files)
    return _checked(files.items())


def _parse_legacy(text: str) -> Index:
    """`<sha256>  <path>` lines of mpigen versions before index version 1."""
    pairs = []
    for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
        if line.startswith("#"):
            continue
        digest_part, sep, path = line.partition("  ")
        if not sep:
            return Index(distrust=f"its line '{line[:80]}' is not an entry")
        pairs.append((path, digest_part))
    return _checked(pairs)


def _all_safe(files: dict) -> bool:
    """Whether every entry is plainly safe, in a few looks at all of them at once (one per
    entry costs a tenth of a second at 60,000 files); when not, _checked says which is not."""
    try:
        paths, digests = "\n".join(files), "\n".join(files.values())
    except TypeError:  # a digest that is not a string
        return False
    count = len(files)
    # Each digest 64 characters (every 65th a line break, and no other), each a hex digit.
    if len(digests) != 65 * count - 1 or digests.count("\n") != count - 1 or digests[64::65] != "\n" * (count - 1) \
            or not digests.isascii() or digests.encode("ascii").translate(None, b"0123456789abcdef\n"):
        return False
    return INDEX not in files and safe_names(paths, count)


def safe_names(paths: str, count: int) -> bool:
    """Whether each of `count` paths, one per line of `paths`, is a name unsafe_name lets
    through: in a few looks at all of them at once."""
    if _UNSAFE.search(paths.replace("\n", "")) is not None or paths.count("\n") != count - 1:
        return False  # no path holds a line break: each is one line of `paths`
    # Each path padded with slashes, as unsafe_name pads it, the paths apart by a NUL (which none holds).
    padded = "/" + paths.replace("\n", "/\0/") + "/"
    return "\\" not in padded and "//" not in padded and "/./" not in padded and "/../" not in padded


def _checked(pairs) -> Index:
    entries = {}
    for path, value in pairs:
        if not isinstance(path, str) or not isinstance(value, str) or not _DIGEST.fullmatch(value):
            return Index(distrust="it has an entry with no sha256")
        if unsafe_name(path) or path == INDEX or path in entries:
            return Index(distrust=f"it lists '{path[:80]}', which mpigen never writes")
        entries[path] = value
    return Index(entries)

