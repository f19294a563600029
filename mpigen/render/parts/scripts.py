"""The operator's scripts and hostfile, as Jinja templates shipped in the package
(mpigen/render/parts/templates/), and mpigen's own rank-env.sh, shipped as it is.

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

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

FOLDER = Path(__file__).parent / "templates"


@lru_cache(maxsize=None)
def template(name: str):
    """The compiled template of a shipped file."""
    env = SandboxedEnvironment(autoescape=False, undefined=StrictUndefined, keep_trailing_newline=False)
    source = (FOLDER / name).read_text(encoding="utf-8")
    return env.from_string(source)


@lru_cache(maxsize=4096)
def render(name: str, **context) -> str:
    """The rendered text; the context holds only strings, numbers and None, so the same
    call always gives the same text and is remembered (kubexec.sh has two variants)."""
    return template(name).render(**context)


@lru_cache(maxsize=None)
def text(name: str) -> str:
    """A shipped file as it is (no template variables)."""
    return (FOLDER / name).read_text(encoding="utf-8")
