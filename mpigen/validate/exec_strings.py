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

The names of environment variables that podTemplatePatch writes (its init containers'
env[].name, and envFrom[].prefix of those and of the MPI container; the blueprint's own env
names are stricter, mpigen.formats.patterns.ENV_NAME) are checked as the API server checks
them (Kubernetes pkg/apis/core/validation/validation.go validateEnvVarName, and for a prefix
validateEnvFrom; apimachinery pkg/util/validation/validation.go): with the feature gate
RelaxedEnvironmentVariableValidation (beta and on from v1.32, GA v1.34) IsRelaxedEnvVarName,
a non-empty name of printable ASCII other than '=', which no version takes otherwise (an
error; for execve an environment entry is NAME=VALUE, so a '=' in a name cannot be told
from the value); without it (v1.30, v1.31 by default) IsEnvVarName, `[-._a-zA-Z][-._a-zA-Z0-9]*`
and not `.`, `..` or `..`-prefixed, which those versions refuse (a warning).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mpigen.errors import Diagnostic, error, warning
from mpigen.load.document import Loc, field_path
from mpigen.validate.fields import Fields

# A key on the way to a string that becomes argv, environment or a working directory: the
# blueprint's command fields and env, a download step's, and those of podTemplatePatch's
# containers (command, args, env[].value, probes' and hooks' exec commands, workingDir); and
# a dataset's nfs source, which becomes the kubelet's mount(8) argument.
EXEC_KEYS = frozenset({"command", "args", "mpirunArgs", "launcherCommand", "env", "workingDir", "nfs"})
# A dataset's nfs server and path: the kubelet mounts the volume by running mount(8) with
# `<server>:<path>` as an argument (kubernetes pkg/volume/nfs/nfs.go SetUpAt ->
# k8s.io/mount-utils mount_linux.go doMount, exec.Command), which Go's os/exec refuses to start
# with a NUL in an argument (syscall.SlicePtrFromStrings: EINVAL).
MOUNTED = ("which the volume cannot be mounted with: the kubelet runs mount(8) with <server>:<path> as an argument, "
           "and exec refuses an argument that holds a NUL, so no pod of the job starts")
STRICT_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")  # apimachinery envVarNameFmt


def check_exec_strings(f: Fields, out: list[Diagnostic]) -> None:
    spec = f.doc.data.get("spec") if isinstance(f.doc.data, dict) else None
    if not isinstance(spec, dict):
        return
    for loc, value in _held_nul(spec, ("spec",), False, []):
        if f.ok(loc):
            why = MOUNTED if "nfs" in loc else ("which no container can be started with: the runtime passes commands, "
                                                "arguments and environment to execve(2) as NUL-terminated strings and "
                                                "refuses one that holds a NUL")
            out.append(error(f.doc.value_mark(loc),
                             f"{field_path(loc)}: holds a NUL character (\\0, at character {value.index(chr(0)) + 1}), "
                             f"{why}; remove it"))


def _held_nul(node: object, loc: Loc, reaches: bool, out: list[tuple[Loc, str]]) -> list[tuple[Loc, str]]:
    """Every string under the mapping or list `node` that reaches argv or the environment
    (`reaches`: node is under an EXEC_KEYS key) and holds a NUL, with its location, in the
    document's order, added to `out`. The location is made only for a mapping, a list, or a
    string that holds one: most values are strings that do not."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if isinstance(value, str):
            if "\0" in value and (reaches or key in EXEC_KEYS):
                out.append((loc + (key,), value))
        elif isinstance(value, (dict, list)):
            _held_nul(value, loc + (key,), reaches or key in EXEC_KEYS, out)
    return out


def check_env_names(f: Fields, out: list[Diagnostic]) -> None:
    """The names podTemplatePatch gives environment variables, at their lines."""
    for loc, name, what in _env_names(f):
        if not f.ok(loc):
            continue
        if (not name and what == "prefix") or "\0" in name:
            continue  # an empty prefix is none (validateEnvFrom checks one only when given); a NUL is check_exec_strings'
        relaxed = _relaxed_problem(name)
        if relaxed:
            out.append(error(f.doc.value_mark(loc),
                             f"{field_path(loc)}: {name!r} is no environment variable {what} the API server takes: "
                             f"{relaxed} (validateEnvVarName, IsRelaxedEnvVarName: \"a valid environment variable "
                             "name must consist only of printable ASCII characters other than '='\"); rename it"))
        elif not STRICT_ENV_NAME.fullmatch(name) or name in (".", "..") or name.startswith(".."):
            out.append(warning(f.doc.value_mark(loc),
                               f"{field_path(loc)}: {name!r} is an environment variable {what} that Kubernetes "
                               "before v1.32 refuses (IsEnvVarName: letters, digits, '_', '-' and '.', not starting "
                               "with a digit or '..'; v1.32 relaxes it with the RelaxedEnvironmentVariableValidation "
                               "feature gate); rename it unless every cluster runs v1.32 or later"))


def _relaxed_problem(name: str) -> str:
    """Why IsRelaxedEnvVarName refuses a name ('' where it takes it)."""
    if not name:
        return "it is empty"
    bad = next((c for c in name if not (" " <= c <= "~") or c == "="), None)
    return "" if bad is None else f"it holds {bad!r}"


def _env_names(f: Fields) -> Iterator[tuple[Loc, str, str]]:
    """(where, name, 'name' or 'prefix') of each environment name or prefix the patch writes."""
    for role in ("launcher", "worker"):
        patch: Loc = ("spec", "podTemplatePatch", role)
        containers = [(patch + ("container",), f.get(patch + ("container",)))]
        inits = f.get(patch + ("pod", "initContainers"))
        if isinstance(inits, list):
            containers += [(patch + ("pod", "initContainers", i), c) for i, c in enumerate(inits)]
        for here, container in containers:
            if not isinstance(container, dict):
                continue
            for key, field, what in (("env", "name", "name"), ("envFrom", "prefix", "prefix")):
                items = container.get(key)
                for i, item in enumerate(items if isinstance(items, list) else []):
                    if isinstance(item, dict) and isinstance(item.get(field), str):
                        yield here + (key, i, field), item[field], what
