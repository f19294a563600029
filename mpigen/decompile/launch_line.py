"""`mpigen import`, the launch line: the launcher's command as the blueprint's command,
mpirunArgs and framework when rendering them gives the same line back (checked), else
as launcherCommand, with why when that freezes a literal process count. mpirun's
single-dash long options are written with two dashes, as mpigen always writes them
(Open MPI 5 rejects the single-dash forms; contract section 1).

The same line is the same program after the same mpirun options: Open MPI's mpirun reads
its options in any order (the MPI Operator's own examples put `--allow-run-as-root` before
`-np`), so an Open MPI line whose options are those mpigen writes, in another order, is
the same line; unless one setting is given twice with different values, where the order
decides which one holds.
"""

from __future__ import annotations

import shlex
from collections import Counter

from mpigen.compile.environment import RANK_ENV_SCRIPT
from mpigen.compile.launch import HOST_DISCOVERY, launcher_command, total_slots
from mpigen.formats.blueprint import Spec
from mpigen.validate.process_count import OPTION_VALUES, asked_counts
from mpigen.validate.production import MPIRUN_NP_FLAGS

# Flags taking values, to tell mpirun's own arguments from the program's.
FLAG_VALUES = {"-x": 1, "--mca": 2, "-mca": 2, "--bind-to": 1, "-bind-to": 1, "--map-by": 1, "-map-by": 1,
               "-H": 1, "--host": 1, "-host": 1, "--hostfile": 1, "-hostfile": 1, "-genv": 2, "-env": 2,
               "-genvlist": 1, "-npernode": 1, "--npernode": 1, "-ppn": 1, "-n": 1, "-np": 1}
# Single-dash long options of older examples, which Open MPI 5 rejects (openmpi5-notes 2).
TWO_DASH = {"-bind-to": "--bind-to", "-map-by": "--map-by", "-mca": "--mca"}
SPEC_KEYS = ("image", "workers", "slotsPerWorker", "env", "gpusPerWorker", "mpiImplementation", "launcher")
Group = tuple[str, ...]  # one mpirun option with its values


def host_discovery_at(argv: list[str]) -> int | None:
    """The word of a launch line that names Horovod elastic's host discovery script, if one does."""
    return next((i for i, word in enumerate(argv) if any(mark in word for mark in HOST_DISCOVERY)), None)


def launch_fields(argv: list[str], implementation: str, spec: dict,
                  workers_only: set[str] = frozenset()) -> tuple[dict, tuple[int, str] | None]:
    """command, mpirunArgs and framework that render argv, or its Open MPI options in another
    order; else launcherCommand, and, when argv gives mpirun a literal process count, (its
    index in argv, why mpigen cannot write the line itself, so that the count no longer
    follows spec.workers). The env the workers alone set (workers_only) is not forwarded by
    the hand-written line: argv is matched as mpigen writes it without them (with them, the
    line also forwards them, which changes nothing: the workers have the same values)."""
    if argv[:1] == ["mpirun"] and implementation == "OpenMPI":
        argv = [TWO_DASH.get(arg, arg) if i < _program_start(argv) else arg for i, arg in enumerate(argv)]
    base = {k: v for k, v in spec.items() if k in SPEC_KEYS}
    if workers_only and isinstance(base.get("env"), dict):
        base["env"] = {k: v for k, v in base["env"].items() if k not in workers_only}
    if argv[:1] == ["mpirun"]:
        found = _exact(argv, implementation, base)
        if found is None and implementation == "OpenMPI" and RANK_ENV_SCRIPT not in argv:
            found = _reordered(argv, base)
        if found is not None:
            return found, None
    return ({"launcherCommand": argv} if argv else {}), _why_kept(argv, implementation, base)


def _exact(argv: list[str], implementation: str, base: dict) -> dict | None:
    """The fields whose render is argv itself, word for word."""
    # Hydra jobs get no framework flags, so their framework cannot be told: custom.
    frameworks = ("horovod", "pytorch", "custom") if implementation == "OpenMPI" else ("custom",)
    if RANK_ENV_SCRIPT in argv:  # the PyTorch/DeepSpeed preset: the script is mpigen's, not the program
        frameworks = ("pytorch",)
    plain = [arg for arg in argv if arg != RANK_ENV_SCRIPT]
    for framework in frameworks:
        for start, program in _splits(plain):
            candidate = {"framework": framework, "mpirunArgs": plain[start:program], "command": plain[program:]}
            if any(arg in MPIRUN_NP_FLAGS for arg in candidate["mpirunArgs"]):
                continue  # mpigen refuses -np among mpirunArgs: it writes -np itself
            if _rendered(base, candidate) == argv:
                return _written(candidate)
    return None


def _reordered(argv: list[str], base: dict) -> dict | None:
    """The fields whose render is argv's program after argv's Open MPI options, in mpigen's order."""
    given = _options(argv)
    if given is None or not given[1] or _order_matters(given[0]):
        return None
    groups, program = given
    for framework in ("horovod", "pytorch", "custom"):
        own = _options(_rendered(base, {"framework": framework, "command": program}) or [])
        rest = _less(groups, own[0]) if own is not None else None
        if rest is None:
            continue
        candidate = {"framework": framework, "mpirunArgs": [word for group in rest for word in group],
                     "command": program}
        made = _options(_rendered(base, candidate) or [])
        if made is not None and made[1] == program and Counter(made[0]) == Counter(groups):
            return _written(candidate)
    return None


def _why_kept(argv: list[str], implementation: str, base: dict) -> tuple[int, str] | None:
    """Where argv's literal process count is and why mpigen cannot write argv itself; None
    when argv has no literal count, or one the job's slots refuse (an error of its own)."""
    counts = asked_counts(argv, implementation != "OpenMPI")
    slots = _slots(base)
    if not counts or slots is None or counts[0][1] != slots:
        return None
    index, count = counts[0]
    if argv[:1] != ["mpirun"]:
        why = f"and this line starts with {argv[0]!r}, not with mpirun"
    else:
        given = _options(argv)
        nearest = None
        if given is not None and given[1]:
            args = [word for group in given[0] if group[0] not in MPIRUN_NP_FLAGS for word in group]
            nearest = _rendered(base, {"mpirunArgs": args, "command": given[1]})
        why = (f"whose nearest to this line is {shlex.join(nearest)!r}" if nearest else
               "and here mpirun's options cannot be told from the program")
    return index, (f"kept as spec.launcherCommand, so this process count stays {count} when spec.workers changes: "
                   f"mpigen writes `mpirun -np <workers x slots> <framework flags> <mpirunArgs> <command>` (its "
                   f"options in any order), {why}")


def _rendered(base: dict, candidate: dict) -> list[str] | None:
    try:
        return launcher_command(Spec.model_validate({**base, **candidate}))
    except ValueError:  # a candidate the model refuses is simply not this one
        return None


def _slots(base: dict) -> int | None:
    try:
        return total_slots(Spec.model_validate({**base, "command": ["true"]}))
    except ValueError:
        return None


def _written(candidate: dict) -> dict:
    if candidate["framework"] == "custom":
        del candidate["framework"]
    return {k: v for k, v in candidate.items() if v}


def _options(argv: list[str]) -> tuple[list[Group], list[str]] | None:
    """mpirun's options, each with its values, and the program after them; None when an
    option's values run past the end."""
    groups, i = [], 1
    while i < len(argv) and argv[i].startswith("-"):
        end = i + 1 + _values(argv[i])
        if end > len(argv):
            return None
        groups.append(tuple(argv[i:end]))
        i = end
    return groups, argv[i:]


def _values(flag: str) -> int:
    if flag in FLAG_VALUES or flag in MPIRUN_NP_FLAGS:
        return FLAG_VALUES.get(flag, 1)
    return 0 if "=" in flag else OPTION_VALUES.get(flag.lstrip("-"), 0)


def _order_matters(groups: list[Group]) -> bool:
    """Whether one setting is given twice with different values (the last one holds)."""
    seen: dict[tuple, Group] = {}
    for group in groups:
        key = (group[0], group[1].split("=")[0]) if group[0] in ("-x", "--mca") and len(group) > 1 else group[:1]
        if seen.setdefault(key, group) != group:
            return True
    return False


def _less(groups: list[Group], taken: list[Group]) -> list[Group] | None:
    """groups without each of taken once (in groups' order); None when one is missing."""
    rest = list(groups)
    for group in taken:
        if group not in rest:
            return None
        rest.remove(group)
    return rest


def _program_start(argv: list[str]) -> int:
    return _splits(argv)[-1][1] if len(argv) > 1 else len(argv)


def _splits(argv: list[str]) -> list[tuple[int, int]]:
    """(start of mpirunArgs, start of the program) candidates: after `mpirun -np N` and any
    prefix of flags, the program starts at the first argument that is not a flag or a
    flag's value."""
    i = 3 if argv[1:2] == ["-np"] else 1
    starts = [i]
    while i < len(argv) and argv[i].startswith("-"):
        i += 1 + FLAG_VALUES.get(argv[i], 0)
        starts.append(i)
    program = min(i, len(argv))
    return [(start, program) for start in starts if start <= program]
