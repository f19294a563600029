"""Benchmark: render a generated repository for three environments, and one blueprint cold.

    python bench/bench.py [--jobs N] [--seed S]      # or: make bench

Generates, in a temporary folder, a repository as users keep one: N blueprints with
realistic variety (1-64 workers, 0-8 GPUs, 0-3 datasets, every framework and MPI
implementation) as block-style YAML, three overlays (dev, staging, prod: namespaces,
labels, patches selected by name and by label, an image rewrite) and an mpigen.yaml.
It then runs `mpigen render` there in a fresh process (N x 3 jobs into out/<overlay>/)
and prints wall time, jobs per second and peak resident memory; the same for N/2
blueprints, to show that time grows linearly; and the time of `mpigen render` of a
single blueprint to stdout from a cold start (a new interpreter each time), as CI and
pre-commit run it.
"""

from __future__ import annotations

import argparse
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
    from mpigen.emit import dump_object

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


def render_repository(jobs: int, seed: int) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (KiB) and files written for a generated repository."""
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as tmp:
        root = Path(tmp)
        generate(root, jobs, seed)
        wall, peak_kib = timed([sys.executable, "-m", "mpigen", "render"], root)
        files = sum(1 for _ in (root / "out").rglob("*.yaml"))
        return wall, peak_kib, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="blueprints (each rendered for 3 overlays)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cold-runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    walls = {}
    for count in (args.jobs // 2, args.jobs):
        wall, peak_kib, files = render_repository(count, args.seed)
        walls[count] = wall
        print(f"render {count} blueprints x 3 overlays = {count * 3} jobs -> {files} files: {wall:.2f} s wall, "
              f"{count * 3 / wall:.0f} jobs/s, peak RSS {peak_kib / 1024:.0f} MiB")
    half, full = walls[args.jobs // 2], walls[args.jobs]
    print(f"growth: {args.jobs // 2} -> {args.jobs} blueprints took {full / half:.2f}x the time (linear: 2x, "
          "less when start-up dominates)")
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-") as tmp:
        root = Path(tmp)
        generate(root, 1, args.seed)
        single = root / "blueprints" / "job-00000.yaml"
        times = [timed([sys.executable, "-m", "mpigen", "render", str(single), "--stdout"], root)[0]
                 for _ in range(args.cold_runs)]
    print(f"single blueprint, cold start: median {statistics.median(times):.3f} s "
          f"(min {min(times):.3f} s, {args.cold_runs} runs)")


if __name__ == "__main__":
    main()
