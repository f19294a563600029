"""Benchmark: render a generated repository for three environments, and one blueprint cold.

    python bench/bench.py [--jobs N] [--seed S]      # or: make bench

Generates, in a temporary folder, a repository as users keep one: N blueprints with
realistic variety (1-64 workers, 0-8 GPUs, 0-3 datasets, every framework and MPI
implementation) as block-style YAML, three overlays (dev, staging, prod: namespaces,
labels, patches selected by name and by label, an image rewrite) and an mpigen.yaml.
It then times, in fresh processes, `mpigen render --stdout` (the compiler alone) and
`mpigen render` into a new output folder (N x 3 jobs into out/<overlay>/, one file per
object: the file system's share shows in the difference), with peak resident memory;
the same for N/2 blueprints, to show that time grows linearly; and `mpigen render` of a
single blueprint to stdout from a cold start (a new interpreter each time), as CI and
pre-commit run it.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FRAMEWORKS = ["horovod", "deepspeed", "pytorch", "tensorflow", "mxnet", "custom"]
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
    from mpigen.emit.yaml import dump_object

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


def timed(command: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before)


def measure(root: Path, command: list[str], runs: int, fresh: Path | None = None) -> tuple[list[float], int]:
    """Wall seconds of each run, and the peak RSS (KiB) of the largest; `fresh` is
    removed before each run so that every run writes a new folder."""
    walls, peak = [], 0
    for _ in range(runs):
        if fresh is not None and fresh.exists():
            shutil.rmtree(fresh)
        wall, kib = timed(command, root)
        walls.append(wall)
        peak = max(peak, kib)
    return walls, peak


def spread(walls: list[float]) -> str:
    return f"median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max {max(walls):.2f}, {len(walls)} runs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="blueprints (each rendered for 3 overlays)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    mpigen = [sys.executable, "-m", "mpigen"]
    medians = {}
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as tmp:
        for count in (args.jobs // 2, args.jobs):
            root = Path(tmp, str(count))
            root.mkdir()
            generate(root, count, args.seed)
            jobs = count * 3
            walls, peak = measure(root, mpigen + ["render", "--stdout"], args.runs)
            medians[count] = statistics.median(walls)
            print(f"{count} blueprints x 3 overlays = {jobs} jobs, render to stdout: {spread(walls)}, "
                  f"{jobs / medians[count]:.0f} jobs/s, peak RSS {peak / 1024:.0f} MiB")
            walls, peak = measure(root, mpigen + ["render"], args.runs, fresh=root / "out")
            files = sum(1 for _ in (root / "out").rglob("*.yaml"))
            print(f"{count} blueprints x 3 overlays = {jobs} jobs, render into a new folder ({files} files): "
                  f"{spread(walls)}, peak RSS {peak / 1024:.0f} MiB")
        half, full = medians[args.jobs // 2], medians[args.jobs]
        print(f"growth: {args.jobs // 2} -> {args.jobs} blueprints took {full / half:.2f}x the time to stdout "
              "(linear: 2x; less while start-up is a large share)")
        root = Path(tmp, "single")
        root.mkdir()
        generate(root, 1, args.seed)
        single = root / "blueprints" / "job-00000.yaml"
        walls, _ = measure(root, mpigen + ["render", str(single), "--stdout"], args.cold_runs)
        print(f"single blueprint, cold start: {spread(walls)}")


if __name__ == "__main__":
    main()
