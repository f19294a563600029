"""The strings that reach a container's argv or environment, or the files mpigen writes from
them (the launcher's mpirun line and scripts, the ranks' environment file), refused where they
hold a NUL character, at their line.

The API server stores a NUL in a command, an argument or an env value (a JSON string may
hold \\u0000), but no container can start with one: the runtime passes them to execve(2) as
NUL-terminated strings, and Go refuses to build one from a string that holds a NUL (runc
libcontainer/standard_init_linux.go Init: system.Exec(name, l.config.Args, os.Environ()),
unix.Exec; golang.org/x/sys unix/syscall.go and Go's syscall/syscall.go ByteSliceFromString:
"If s contains a NUL byte at any location, it returns (nil, EINVAL)"). The container then
never starts. Paths are refused by their pattern already (mpigen.formats.patterns.ABSOLUTE_PATH).
"""

from __future__ import annotations

from collections.abc import Iterator

from mpigen.errors import Diagnostic, error
from mpigen.load.document import Loc, field_path
from mpigen.validate.fields import Fields

# A key on the way to a string that becomes argv, environment or a working directory: the
# blueprint's command fields and env, a download step's, and those of podTemplatePatch's
# containers (command, args, env[].value, probes' and hooks' exec commands, workingDir).
EXEC_KEYS = frozenset({"command", "args", "mpirunArgs", "launcherCommand", "env", "workingDir"})


def check_exec_strings(f: Fields, out: list[Diagnostic]) -> None:
    spec = f.doc.data.get("spec") if isinstance(f.doc.data, dict) else None
    if not isinstance(spec, dict):
        return
    for loc, value in _strings(spec, ("spec",), False):
        if "\0" in value and f.ok(loc):
            out.append(error(f.doc.value_mark(loc),
                             f"{field_path(loc)}: holds a NUL character (\\0, at character {value.index(chr(0)) + 1}), "
                             "which no container can be started with: the runtime passes commands, arguments and "
                             "environment to execve(2) as NUL-terminated strings and refuses one that holds a NUL; "
                             "remove it"))


def _strings(node: object, loc: Loc, reaches: bool) -> Iterator[tuple[Loc, str]]:
    """Every string under node that reaches argv or the environment, with its location."""
    if isinstance(node, str):
        if reaches:
            yield loc, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _strings(value, loc + (key,), reaches or key in EXEC_KEYS)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _strings(value, loc + (index,), reaches)
