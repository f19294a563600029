"""The operator's scripts and hostfile, as Jinja templates shipped in the package.

Rendered with StrictUndefined (a missing variable is an error, never an empty string)
and without autoescaping (these are shell and text files, not HTML). Jinja drops the
single newline at the end of a template file, which is how kubexec.sh keeps the
operator's "no trailing newline".
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def _template(name: str):
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=False, undefined=StrictUndefined, keep_trailing_newline=False)
    source = (Path(__file__).parent / name).read_text(encoding="utf-8")
    return env.from_string(source)


@lru_cache(maxsize=4096)
def render(name: str, **context) -> str:
    """The rendered text; the context holds only strings, numbers and None, so the same
    call always gives the same text and is remembered (kubexec.sh has two variants)."""
    return _template(name).render(**context)


@lru_cache(maxsize=None)
def text(name: str) -> str:
    """A shipped file as it is (no template variables)."""
    return (Path(__file__).parent / name).read_text(encoding="utf-8")
