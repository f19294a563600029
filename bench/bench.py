"""Benchmark: render a generated repository for three environments, and one blueprint cold.

    python bench/bench.py [--jobs N] [--seed S] [--against REV]      # or: make bench

Generates, in a temporary folder, a repository as users keep one: N blueprints with
realistic variety (1-64 workers, 0-8 GPUs, 0-3 datasets, every framework and MPI
implementation) as block-style YAML, three overlays (dev, staging, prod: namespaces,
labels, patches selected by name and by label, an image rewrite) and an mpigen.yaml.
It then times, in fresh processes, `mpigen render --stdout` (the compiler alone) and
`mpigen render` into a new output folder (N x 3 jobs into out/<overlay>/, one file per
object: the file system's share shows in the difference), with peak resident memory;
the same for N/2 blueprints, to show that time grows linearly; and `mpigen render` of a
single blueprint to stdout from a cold start (a new interpreter each time), as CI and
pre-commit run it, beside its floor: Python importing the libraries a render loads and
building the models of the blueprint and mpigen.yaml, nothing read or rendered (FLOOR): the
part of a cold start that no change of the render takes away, only fewer models or a pydantic
that builds them faster (pydantic/pydantic#13545 tracks its start-up work).

With --against REV, the mpigen of that Git revision (its mpigen/ folder, run with this
interpreter and these dependencies) is timed on the same repositories, the two versions
taking turns run by run so that the machine's drift hits both alike; the table shows both
and their ratio. With --targets A B, this version renders the same repositories for two
targets (e.g. static jobset), side by side in the same way.

Every render here is a full one, with --no-cache (a run in which nothing changed would
otherwise take its results from the cache of the run before); bench/incremental.py times
the cache. A revision given to --against must know --no-cache.

Python runs as an installed mpigen runs, from bytecode (pip compiles every module it
installs): the children keep their .pyc files under one folder of the benchmark's own
(PYTHONPYCACHEPREFIX, whatever PYTHONDONTWRITEBYTECODE says), the repository and the
virtual environment untouched, and each command runs once untimed first, which writes them.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

# Its sibling modules, also when bench.py is loaded from elsewhere (tests load it by path).
sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
from mpigen.emit.yaml import dump_object  # noqa: E402
from tools import installed, version  # noqa: E402

FRAMEWORKS = ["horovod", "deepspeed", "pytorch", "tensorflow", "mxnet", "custom"]
FULL = ["--no-cache"]  # every job rendered, none taken from the cache of an earlier run
# What no one-blueprint render can go below while its libraries and models are these: Python,
# the libraries a render loads (pydantic, PyYAML, Jinja2's sandbox, argparse) and the models of
# the blueprint and mpigen.yaml built, nothing read or rendered (the cyclic collector off while
# importing, as mpigen.cli.main does). The same modules in every version since 1f0ef7c.
FLOOR = ["-c", "import gc; gc.disable(); import argparse, dataclasses, pathlib, pickle, yaml, jinja2.sandbox, "
               "mpigen.formats.blueprint, mpigen.formats.config"]
IMPLEMENTATIONS = ["OpenMPI", "OpenMPI", "OpenMPI", "IntelMPI", "MPICH"]
GPUS = ["nvidia.com/gpu", "nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "amd.com/gpu"]


def blueprint(i: int, rng: random.Random) -> dict:
    gpus = rng.choice([0, 0, 1, 2, 4, 8, 8])
    spec: dict = {
        "framework": rng.choice(FRAMEWORKS),
        "mpiImplementation": rng.choice(IMPLEMENTATIONS),
        "image": f"registry.example.com/team{i % 17}/train:{rng.randint(1, 40)}.{rng.randint(0, 9)}",
        "workers": rng.randint(1, 64),
        "command": ["python", f"/workspace/train_{i % 23}.py", "--epochs", str(rng.randint(1, 200))],
        "env": {f"VAR_{k}": str(rng.randint(0, 999)) for k in range(rng.randint(0, 4))},
        "resources": {"worker": {"cpu": str(rng.choice([4, 8, 16, 48])), "memory": f"{rng.choice([16, 64, 400])}Gi"},
                      "launcher": {"cpu": "1", "memory": "2Gi"}},
        "datasets": [],
        "runPolicy": {"backoffLimit": rng.randint(0, 6)},
    }
    if gpus:
        spec["gpusPerWorker"] = gpus
        spec["gpuResource"] = rng.choice(GPUS)
    for d in range(rng.randint(0, 3)):
        source = rng.choice([{"pvc": f"claim-{d}"}, {"nfs": {"server": "nfs.example.com", "path": f"/ds{d}"}},
                             {"hostPath": f"/mnt/ds{d}"}])
        spec["datasets"].append({"name": f"data-{d}", "mountPath": f"/data/{d}", **source})
    return {"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint",
            "metadata": {"name": f"job-{i:05d}", "namespace": f"team-{i % 13}", "labels": {"team": f"t{i % 13}"}},
            "spec": spec}


OVERLAYS = {
    "dev": {"namespace": "ml-dev", "labels": {"env": "dev"},
            "patches": [{"patch": {"spec": {"workers": 1, "runPolicy": {"activeDeadlineSeconds": 3600}}}},
                        {"target": {"labelSelector": "team in (t1, t2, t3)"},
                         "patch": {"spec": {"gpusPerWorker": 1, "gpuResource": "nvidia.com/mig-1g.5gb"}}}]},
    "staging": {"labels": {"env": "staging"},
                "patches": [{"target": {"name": "job-000*"}, "patch": {"spec": {"workers": 2}}},
                            {"target": {"labelSelector": "team=t4"},
                             "patch": {"spec": {"placement": {"worker": {"nodeSelector": {"pool": "a10"}}}}}}]},
    "prod": {"bases": ["gpu-pool"], "labels": {"env": "prod"},
             "images": [{"name": "registry.example.com/team3/train", "newName": "mirror.example.com/team3/train"}]},
    "gpu-pool": {"patches": [{"target": {"labelSelector": "team"},
                              "patch": {"spec": {"placement": {"worker": {
                                  "nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
                                  "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                   "effect": "NoSchedule"}]}}}}}]},
}


def yaml_text(data: dict) -> str:
    """Block-style YAML, as people write blueprints (mpigen's own emitter, minus `---`)."""
    return dump_object(data).removeprefix("---\n")


def generate(root: Path, jobs: int, seed: int) -> None:
    rng = random.Random(seed)
    (root / "blueprints").mkdir()
    for i in range(jobs):
        (root / "blueprints" / f"job-{i:05d}.yaml").write_text(yaml_text(blueprint(i, rng)))
    for name, body in OVERLAYS.items():
        (root / "overlays" / name).mkdir(parents=True)
        overlay = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "Overlay", **body}
        (root / "overlays" / name / "overlay.yaml").write_text(yaml_text(overlay))
    config = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "Config", "blueprints": ["blueprints"],
              "overlays": ["dev", "staging", "prod"], "output": "out"}
    (root / "mpigen.yaml").write_text(yaml_text(config))


# Runs one command and prints its wall seconds and peak RSS (KiB). The benchmark starts its
# commands through this small process: a child forked from the benchmark itself would count
# the benchmark's own memory (which holds a large repository's data) in its peak.
_LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def timed(command: list[str], cwd: Path, pythonpath: str) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], cwd=cwd, env=env, capture_output=True,
                          text=True, check=True)
    wall, kib, code = done.stdout.split()
    if int(code):
        raise SystemExit(f"{' '.join(command)} (in {cwd}) exited with {code}")
    return float(wall), int(kib)


def measure(root: Path, commands: dict[str, list[str]], runs: int, fresh: Path | None = None) -> dict:
    """Wall seconds of each run of each version's command, the versions taking turns, and
    the peak RSS (KiB) of each; `fresh` is removed before each run so that every run
    writes a new folder. Each mpigen command runs once untimed first (its bytecode written)."""
    walls: dict[str, list[float]] = {name: [] for name in commands}
    peaks = dict.fromkeys(commands, 0)
    for command in commands.values():
        if command[1] == sys.executable:  # mpigen (kubectl and helm are compiled programs)
            if fresh is not None and fresh.exists():
                shutil.rmtree(fresh)
            timed(command[1:], root, command[0])
    for _ in range(runs):
        for name, command in commands.items():
            if fresh is not None and fresh.exists():
                shutil.rmtree(fresh)
            wall, kib = timed(command[1:], root, command[0])
            walls[name].append(wall)
            peaks[name] = max(peaks[name], kib)
    return {name: (walls[name], peaks[name]) for name in commands}


def keep_bytecode(tmp: Path) -> None:
    """The children run from bytecode kept in `tmp` (see the module's docstring)."""
    os.environ["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def spread(walls: list[float]) -> str:
    return f"{statistics.median(walls):.2f} s ({min(walls):.2f} - {max(walls):.2f})"


def checkout(revision: str, into: Path) -> Path:
    """The mpigen/ folder of a Git revision, extracted into `into`."""
    repo = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(repo), "archive", revision, "mpigen"], check=True,
                             capture_output=True).stdout
    into.mkdir()
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def variants(args, tmp: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Column name -> (the PYTHONPATH that makes `python -m mpigen` run that version, the
    arguments it adds to every command)."""
    here = str(Path(__file__).resolve().parent.parent)
    if args.targets:
        return {f"--target {target}": (here, ("--target", target)) for target in args.targets}
    if args.against is None:
        return {"this version": (here, ())}
    return {"this version": (here, ()), args.against: (str(checkout(args.against, tmp / "against")), ())}


def row(what: str, results: dict, jobs: int | None = None) -> str:
    cells = []
    for walls, peak in results.values():
        cell = spread(walls)
        if jobs:
            cell += f", {jobs / statistics.median(walls):,.0f} jobs/s"
        if peak:
            cell += f", {peak / 1024:.0f} MiB"
        cells.append(cell)
    if len(results) == 2:
        (a, _), (b, _) = results.values()
        cells.append(f"{statistics.median(a) / statistics.median(b):.2f}")
    return f"| {what} | " + " | ".join(cells) + " |"


def render_rows(tmp: Path, paths: dict[str, tuple[str, tuple[str, ...]]], args) -> list[str]:
    rows, medians = [], {}
    for count in (args.jobs // 2, args.jobs):
        root = tmp / str(count)
        root.mkdir()
        generate(root, count, args.seed)
        jobs = count * 3
        stdout = measure(root, commands(paths, ["render", "--stdout"]), args.runs)
        medians[count] = statistics.median(next(iter(stdout.values()))[0])
        rows.append(row(f"{jobs:,} jobs, `mpigen render --stdout`", stdout, jobs))
        folder = measure(root, commands(paths, ["render"]), args.runs, fresh=root / "out")
        files = sum(1 for _ in (root / "out").rglob("*.yaml"))
        # Two targets write different objects, so a file count would be the last one's.
        what = f" ({files:,} files)" if not args.targets else ""
        rows.append(row(f"{jobs:,} jobs into a new output folder{what}", folder))
    half, full = medians[args.jobs // 2], medians[args.jobs]
    print(f"growth: {args.jobs // 2} -> {args.jobs} blueprints took {full / half:.2f}x the time to stdout "
          "(linear: 2x; less while start-up is a large share)")
    return rows


def commands(paths: dict[str, tuple[str, tuple[str, ...]]], argv: list[str]) -> dict[str, list[str]]:
    """Each column's command line, its PYTHONPATH first."""
    return {name: [path, sys.executable, "-m", "mpigen", *argv, *extra, *FULL] for name, (path, extra) in paths.items()}


def compare_rows(tmp: Path, here: str, args) -> list[str]:
    """mpigen, `kubectl kustomize` and one Helm chart on the same jobs, taking turns run by
    run; the last column: how many times mpigen's write of a new folder each one takes."""
    root = tmp / "compare"
    root.mkdir()
    generate(root, args.jobs, args.seed)
    timed([sys.executable, "-m", "mpigen", "render", "-o", "built"], root, here)
    jobs = args.jobs * len(compare.ENVS)
    runs = {"mpigen render --stdout": [here, sys.executable, "-m", "mpigen", "render", "--stdout", *FULL],
            "mpigen render into a new output folder": [here, sys.executable, "-m", "mpigen", "render", *FULL]}
    if not args.no_compare:
        tools = installed()
        print(f"helm {version(tools['helm'])}, kubectl {version(tools['kubectl'])}")
        # in a process of its own, so that the benchmark stays small (see _LAUNCHER)
        subprocess.run([sys.executable, str(Path(compare.__file__)), str(root), str(root / "built")], check=True)
        runs["kubectl kustomize of the 3 environment folders"] = ["", *compare.kustomize_command(tools["kubectl"],
                                                                                                "built")]
        runs["helm template of one chart whose values hold the objects, x3"] = ["", *compare.helm_command(
            tools["helm"])]
    results = measure(root, runs, args.runs, fresh=root / "out")
    folder = statistics.median(results["mpigen render into a new output folder"][0])
    lines = [f"{jobs:,} jobs ({args.jobs:,} blueprints x 3 overlays), {args.runs} runs each, taking turns:", "",
             "| what | time | peak RSS | / mpigen into a new folder |", "|---|---|---|---|"]
    for what, (walls, peak) in results.items():
        lines.append(f"| {what} | {spread(walls)} | {peak / 1024:.0f} MiB | {statistics.median(walls) / folder:.2f} |")
    return lines


def scale_rows(tmp: Path, here: str, args) -> list[str]:
    """Time and peak RSS of mpigen to stdout and into a new folder at each size."""
    lines = ["| jobs | `--stdout` | into a new folder | folder per 1,000 jobs |", "|---|---|---|---|"]
    for wanted in args.scale:
        count = max(1, round(wanted / 3))
        root = tmp / f"scale-{count}"
        root.mkdir()
        generate(root, count, args.seed)
        runs = args.runs if wanted <= 3000 else 1
        cells = []
        for argv in (["render", "--stdout"], ["render"]):
            (walls, peak), = measure(root, {"": [here, sys.executable, "-m", "mpigen", *argv, *FULL]}, runs,
                                     fresh=root / "out").values()
            cells.append((statistics.median(walls), peak))
        per = cells[1][0] / (count * 3) * 1000
        lines.append(f"| {count * 3:,} | " + " | ".join(f"{wall:.2f} s, {peak / 1024:.0f} MiB" for wall, peak in cells)
                     + f" | {per:.2f} s |")
        shutil.rmtree(root)
    return lines


def cold_rows(tmp: Path, here: str, args) -> list[str]:
    root = tmp / "single"
    root.mkdir()
    generate(root, 1, args.seed)
    single = root / "blueprints" / "job-00000.yaml"
    runs = {"`mpigen --help`, cold start": [here, sys.executable, "-m", "mpigen", "--help"],
            "one blueprint to stdout, cold start": [here, sys.executable, "-m", "mpigen", "render", str(single),
                                                    "--stdout", *FULL],
            "its floor (libraries imported and models built, nothing rendered)": [here, sys.executable, *FLOOR]}
    lines = [f"- {what}: {spread(walls)}, {peak / 1024:.0f} MiB"
             for what, (walls, peak) in measure(root, runs, args.cold_runs).items()]
    lines.append("- one blueprint to stdout, " + compare.import_times(root, single, here)[0])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="blueprints (each rendered for 3 overlays)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--against", metavar="REV", help="also time the mpigen of this Git revision, side by side")
    parser.add_argument("--targets", nargs=2, metavar=("A", "B"), help="time two targets side by side instead")
    parser.add_argument("--scale", type=int, nargs="+", metavar="JOBS", default=[300, 1000, 3000, 10000, 30000],
                        help="the jobs of each row of the scaling table (blueprints x 3 overlays)")
    parser.add_argument("--no-compare", action="store_true",
                        help="leave out kubectl kustomize and helm (fetched into bench/tools/ with npm)")
    args = parser.parse_args()
    if args.against and args.targets:
        parser.error("--against and --targets each make two columns; give one of them")
    if not args.against and not args.targets:
        here = str(Path(__file__).resolve().parent.parent)
        with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as name:
            tmp = Path(name)
            keep_bytecode(tmp)
            for title, section in (("", compare_rows), ("\nScaling:\n", scale_rows), ("\nCold start:\n", cold_rows)):
                print(title + "\n".join(section(tmp, here, args)), flush=True)
        return
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as name:
        tmp = Path(name)
        keep_bytecode(tmp)
        paths = variants(args, tmp)
        rows = render_rows(tmp, paths, args)
        root = tmp / "single"
        root.mkdir()
        generate(root, 1, args.seed)
        single = root / "blueprints" / "job-00000.yaml"
        # the cold starts and their floors taking turns in one series, so that the machine's
        # drift cannot come between a cold start and its floor either
        both = measure(root, {**{("cold", k): v for k, v in commands(paths, ["render", str(single), "--stdout"]).items()},
                              **{("floor", k): [path, sys.executable, *FLOOR] for k, (path, _) in paths.items()}},
                       args.cold_runs)
        cold, floor = ({k: both[(what, k)] for k in paths} for what in ("cold", "floor"))
        rows.append(row("one blueprint to stdout, cold start", {k: (w, 0) for k, (w, _) in cold.items()}))
        rows.append(row("the floor of that: libraries imported and models built, nothing rendered",
                        {k: (w, 0) for k, (w, _) in floor.items()}))
    first, *second = paths
    ratio = [f"{first} / {second[0]}"] if second else []
    print("| what | " + " | ".join([*paths, *ratio]) + " |")
    print("|---" * (1 + len(paths) + len(ratio)) + "|")
    print("\n".join(rows))
    if args.against:
        here, against = (statistics.median(cold[name][0]) for name in paths)
        print(f"cold start: {here / against:.2f} of {args.against}'s; the floor alone: "
              f"{statistics.median(floor[next(iter(paths))][0]) / against:.2f} of it")


if __name__ == "__main__":
    main()
