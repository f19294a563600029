"""The launcher's command: a program (spec.command), or the whole mpirun line
(spec.launcherCommand), never both.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import Fields


def check_command(f: Fields, out: list[Diagnostic]) -> None:
    command, launcher, args = ("spec", "command"), ("spec", "launcherCommand"), ("spec", "mpirunArgs")
    if not isinstance(f.doc.data.get("spec"), dict) or not f.ok(command, launcher, args):
        return
    if f.get(launcher) is None and f.get(command) is None:
        out.append(error(f.doc.key_mark(("spec",)),
                         "spec: required key 'command' is missing (the program every rank runs); "
                         "or give the whole launcher command as launcherCommand"))
    if f.get(launcher) is not None:
        for unused in ("command", "mpirunArgs"):
            if f.get(("spec", unused)):
                out.append(error(f.doc.key_mark(("spec", unused)),
                                 f"spec.{unused} is not used when spec.launcherCommand is set: it replaces the "
                                 f"whole mpirun line; remove {unused} or launcherCommand"))
