"""What every cache key holds besides a file's own bytes: this build of mpigen (its version and
the bytes of its code and templates), the Python and every installed library whose code or data
reach the output's bytes, and the settings of the run.

tests/acceptance/cache/test_key_inputs.py renders under every target and option with an audit hook
on what the process opens and imports, and fails when a render reads a file of an installed
distribution that the key of that render does not hold."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import mpigen
from mpigen.cache.installed import identity
from mpigen.load.document import Document
from mpigen.overlay.resolve import Overlay
from mpigen.render.target import Options
from mpigen.render.targets import resolved

_PACKAGE = Path(mpigen.__file__).resolve().parent

# The installed distributions every run loads: the YAML parser (its libyaml events), the models
# and their validators with what they load, the templates' engine and what it escapes with.
RUN_LIBRARIES = ("PyYAML", "pydantic", "pydantic-core", "annotated-types", "typing-extensions", "typing-inspection",
                 "Jinja2", "MarkupSafe")


@cache
def build() -> bytes:
    """A digest of mpigen's version, of every file of its package (a changed line of code in
    an editable install changes it as a release would), of Python's version (its standard
    library) and of the installed libraries every run loads (mpigen.cache.installed)."""
    digest = hashlib.sha256()
    versions = (mpigen.__version__, sys.version, sys.implementation.cache_tag, *map(identity, RUN_LIBRARIES))
    digest.update(repr(versions).encode("utf-8"))
    for path in sorted(p for p in _PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode("utf-8", "surrogatepass") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def context(*settings) -> bytes:
    """The digest of this build and a run's settings (each given as a deterministic repr)."""
    digest = hashlib.sha256(build())
    for item in settings:
        digest.update(b"\0" + item.encode("utf-8", "surrogatepass"))
    return digest.digest()


def file_key(context_digest: bytes, shown: str, named: bool, raw: bytes) -> bytes:
    """The key of one input file's result: the run's context, the path as messages and
    `# Source:` lines show it, whether it was named on the command line, and its bytes."""
    digest = hashlib.sha256(context_digest)
    digest.update(shown.encode("utf-8", "surrogatepass") + (b"\1" if named else b"\0"))
    digest.update(raw)
    return digest.digest()


def key_settings(overlays: list[Overlay], env_options: list[Options | None], default_namespace: str | None,
                 render: bool, targetings: Sequence[tuple[tuple, tuple[Options, ...]]] = (),
                 watched: bool = False) -> list[str]:
    """A run's settings as text: whether it renders, the namespace of blueprints that name
    none, each environment's options and its target rules with the options of their other
    targets (`targetings`: per environment, its rules, whose repr holds every value and position,
    and those options: mpigen.pipeline.settings.Targeting), and the
    libraries whose data its targets' objects hold, and each overlay with its bases as they were read
    (their documents, with the position of every key and value: a message points there).
    A run that asks for every job's Watched (`mpigen status`) says so; the keys of other runs
    are what they always were."""
    settings = [repr((render, default_namespace)), repr(list(env_options)), repr(list(targetings))] \
        + (["watched"] if watched else [])
    every = [*env_options, *(options for _, ruled in targetings for options in ruled)]
    libraries = dict.fromkeys(name for options in every if options is not None
                              for name in resolved(options).definition.libraries(options))
    settings.extend(identity(name) for name in libraries)
    for overlay in overlays:
        settings.append(overlay.name)
        settings.extend(_document(item.name, item.doc) for item in overlay.chain())
    return settings


def _document(name: str, doc: Document) -> str:
    """One overlay document, every part of it in a fixed order (a set's order varies with
    PYTHONHASHSEED)."""
    return repr((name, doc.path, doc.data, doc.start, sorted(doc.key_marks.items(), key=repr),
                 sorted(doc.value_marks.items(), key=repr), doc.problems, sorted(doc.reported, key=repr)))
