"""One draw of the property test (tests/system/test_e2e_property.py), the way the end-to-end
tests run a job: the blueprint (and overlay) rendered by the CLI into a folder; refused, the
refusal must be positioned; accepted, the rendered objects must pass the API server's admission
(as far as admission.py models it) and run in the pretend cluster of their target (cluster.py for
static, jobset_cluster.py, trainjob_cluster.py with the Trainer's port), and the launcher's
rendered command, with only its program replaced by allreduce.py, must run one allreduce over
every rank host with its slots."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from tests.support.command_line import run_mpigen
from tests.support.e2e.admission import admit
from tests.support.e2e.blueprint_space import Draw
from tests.support.e2e.cluster import PretendCluster
from tests.support.e2e.harness import MPICH, assert_left_nothing, image_env, launch_command, result
from tests.support.e2e.image import launch_helpers
from tests.support.e2e.jobset_cluster import JobSetCluster
from tests.support.e2e.trainjob_cluster import TrainJobCluster, expand_rendered

INVALID_INPUT = 2


def render_draw(draw: Draw, folder: Path) -> tuple[subprocess.CompletedProcess, list[Path], Path]:
    """(mpigen's run, the files it was given, the output folder it was asked to write)."""
    inputs = folder / "in"
    inputs.mkdir()
    blueprint = inputs / "blueprint.yaml"
    blueprint.write_text(yaml.safe_dump(draw.blueprint, sort_keys=False))
    given, args = [blueprint], ["render", str(blueprint)]
    if draw.overlay is not None:
        overlay = inputs / "overlay.yaml"
        overlay.write_text(yaml.safe_dump(draw.overlay, sort_keys=False))
        given.append(overlay)
        args += ["--overlay", str(overlay)]
    if draw.target_flag:
        args += ["--target", draw.target_flag]
    out = folder / "out"
    return run_mpigen(*args, "-o", str(out)), given, out


def refusal_problems(done: subprocess.CompletedProcess, given: list[Path], out: Path) -> list[str]:
    """What is wrong with a refusal: it must exit 2 with no traceback, every error at a line and
    column of a file it was given, and write nothing."""
    stderr = done.stderr.decode(errors="replace")
    problems = []
    if done.returncode != INVALID_INPUT:
        problems.append(f"exit {done.returncode}, not {INVALID_INPUT}")
    if "Traceback" in stderr:
        problems.append("a traceback")
    errors = [line for line in stderr.splitlines() if ": error: " in line or line.startswith("error: ")]
    positioned = re.compile("^(" + "|".join(re.escape(str(path)) for path in given) + r"):\d+:\d+: error: ")
    if not errors:
        problems.append("no error line")
    problems += [f"an error without a position in a given file: {line}" for line in errors
                 if not positioned.match(line)]
    if out.exists():
        problems.append(f"{out} was written")
    return problems


def _cluster(draw: Draw, objects: list[dict], workdir: Path):
    """The pretend cluster of the draw's target, not started."""
    workdir.mkdir()
    if draw.target == "static":
        return PretendCluster(workdir, objects, image_env=image_env(draw.mpi))
    if draw.target == "jobset":
        return JobSetCluster(workdir, objects, image_env=image_env(draw.mpi), helpers=launch_helpers(MPICH))
    _, expanded = expand_rendered(objects)
    return TrainJobCluster(workdir, expanded, image_env=image_env(draw.mpi), helpers=launch_helpers(MPICH))


def run_draw(draw: Draw, objects: list[dict], workdir: Path) -> tuple[dict, list[str]]:
    """Start the draw's job and run its launcher: (what allreduce.py saw, the rank hosts), once
    the cluster is closed and found to have left nothing behind. The API server's admission of
    the objects comes first (admission.py)."""
    admit(objects)
    cluster = _cluster(draw, objects, workdir)
    try:
        cluster.start()
        if draw.target == "static":
            cluster.deliver_kubectl()
        workers = [pod.uts_name for pod in cluster.workers()]
        hosts = [*workers, *([cluster.launcher().uts_name] if draw.run_as_worker else [])]
        command = launch_command({"spec": {"command": draw.program}}, cluster.launcher().container,
                                 [str(len(hosts) * draw.slots), ",".join(f"{h}:{draw.slots}" for h in hosts)])
        done = cluster.run_launcher(command, timeout=60)
    except BaseException:
        cluster.close()
        raise
    assert_left_nothing(cluster)
    assert len(workers) == draw.workers, f"{len(workers)} worker pods for {draw.workers} workers: {workers}"
    return result(done), hosts
