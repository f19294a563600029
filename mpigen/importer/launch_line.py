"""`mpigen import`, the launch line: the launcher's command as the blueprint's command,
mpirunArgs and framework when rendering them gives the same line back (checked), else
as launcherCommand. mpirun's single-dash long options are written with two dashes, as
mpigen always writes them (Open MPI 5 rejects the single-dash forms; contract section 1).
"""

from __future__ import annotations

from mpigen.compile.environment import RANK_ENV_SCRIPT
from mpigen.compile.launch import launcher_command
from mpigen.formats.blueprint import Spec
from mpigen.validate.production import MPIRUN_NP_FLAGS

# Flags taking values, to tell mpirun's own arguments from the program's.
FLAG_VALUES = {"-x": 1, "--mca": 2, "-mca": 2, "--bind-to": 1, "-bind-to": 1, "--map-by": 1, "-map-by": 1,
               "-H": 1, "--host": 1, "-host": 1, "--hostfile": 1, "-hostfile": 1, "-genv": 2, "-env": 2,
               "-genvlist": 1, "-npernode": 1, "--npernode": 1, "-ppn": 1, "-n": 1, "-np": 1}
# Single-dash long options of older examples, which Open MPI 5 rejects (openmpi5-notes 2).
TWO_DASH = {"-bind-to": "--bind-to", "-map-by": "--map-by", "-mca": "--mca"}
SPEC_KEYS = ("image", "workers", "slotsPerWorker", "env", "gpusPerWorker", "mpiImplementation", "launcher")


def launch_fields(argv: list[str], implementation: str, spec: dict) -> dict:
    """command, mpirunArgs and framework that render exactly argv; else launcherCommand."""
    if argv[:1] == ["mpirun"] and implementation == "OpenMPI":
        argv = [TWO_DASH.get(arg, arg) if i < _program_start(argv) else arg for i, arg in enumerate(argv)]
    if argv[:1] == ["mpirun"]:
        # Hydra jobs get no framework flags, so their framework cannot be told: custom.
        frameworks = ("horovod", "pytorch", "custom") if implementation == "OpenMPI" else ("custom",)
        if RANK_ENV_SCRIPT in argv:  # the PyTorch/DeepSpeed preset: the script is mpigen's, not the program
            frameworks = ("pytorch",)
        plain = [arg for arg in argv if arg != RANK_ENV_SCRIPT]
        base = {k: v for k, v in spec.items() if k in SPEC_KEYS}
        for framework in frameworks:
            for start, program in _splits(plain):
                candidate = {"framework": framework, "mpirunArgs": plain[start:program], "command": plain[program:]}
                if any(arg in MPIRUN_NP_FLAGS for arg in candidate["mpirunArgs"]):
                    continue  # mpigen refuses -np among mpirunArgs: it writes -np itself
                try:
                    rendered = launcher_command(Spec.model_validate({**base, **candidate}))
                except ValueError:  # a candidate the model refuses is simply not this one
                    continue
                if rendered == argv:
                    if framework == "custom":
                        del candidate["framework"]
                    return {k: v for k, v in candidate.items() if v}
    return {"launcherCommand": argv} if argv else {}


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
