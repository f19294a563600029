"""The operator's scripts and hostfile, as Jinja templates shipped in the package.

Rendered in Jinja's sandbox with StrictUndefined (a missing variable is an error, never an
empty string): the blueprint's values reach the templates only as variables, and should
one ever carry template syntax, the sandbox keeps it from reaching Python. No
autoescaping (these are shell and text files, not HTML). Jinja drops the single newline
at the end of a template file, which is how kubexec.sh keeps the operator's "no trailing
newline".
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def _template(name: str):
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined, keep_trailing_newline=False)
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
