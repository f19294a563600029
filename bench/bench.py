"""Benchmark: render many generated blueprints and one blueprint from a cold start.

    python bench/bench.py [--jobs N] [--seed S]      # or: make bench

Generates N blueprints with realistic variety (1-64 workers, 0-8 GPUs, 0-3 datasets,
every framework and MPI implementation) in a temporary folder, renders them all with
`mpigen render -o` in a fresh process, and prints wall time, jobs per second and the
peak resident memory of that process. Then it times `mpigen render` of a single
blueprint to stdout, cold (a new interpreter each time), as CI runs it.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
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


def generate(folder: Path, jobs: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(jobs):
        # JSON is YAML; one file per blueprint, as users keep them.
        (folder / f"job-{i:05d}.yaml").write_text(json.dumps(blueprint(i, rng), indent=2) + "\n")


def timed(command: list[str], cwd: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()
    mpigen = [sys.executable, "-m", "mpigen"]
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as tmp:
        root = Path(tmp)
        (root / "blueprints").mkdir()
        generate(root / "blueprints", args.jobs, args.seed)
        wall, peak_kib = timed(mpigen + ["render", "blueprints", "-o", "out"], root)
        files = sum(1 for p in (root / "out").rglob("*.yaml"))
        print(f"render {args.jobs} jobs -> {files} files: {wall:.2f} s wall, {args.jobs / wall:.0f} jobs/s, "
              f"peak RSS {peak_kib / 1024:.0f} MiB")
        single = root / "blueprints" / "job-00000.yaml"
        times = [timed(mpigen + ["render", str(single), "--stdout"], root)[0] for _ in range(args.cold_runs)]
        print(f"single blueprint, cold start: median {statistics.median(times):.3f} s "
              f"(min {min(times):.3f} s, {args.cold_runs} runs)")


if __name__ == "__main__":
    main()
