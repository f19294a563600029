"""Benchmark of incremental renders: a generated repository rendered in full, then with one
blueprint changed, with the cache of mpigen.cache (`render` and `check`).

    python bench/incremental.py [--jobs N] [--overlays] [--runs R]

Generates N blueprints (bench/bench.py's, without overlays unless --overlays: then each is
rendered for three), renders them once into out/ to fill the cache and checks them once
(what mpigen saw of out/ is kept: files older than a few seconds), then times, in fresh
processes taking turns run by run: `mpigen render --no-cache` after one blueprint changed
(the full render; then an untimed `mpigen render`, since a run without the cache leaves the
record of the last run behind: mpigen.cache.runs), and `mpigen render` and `mpigen check` with
the cache, each after one more change of that blueprint (check then finds the folder stale,
exit 1), for each kind of edit: its command, and its workers.
Prints the medians and the ratios to the full render.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import generate, keep_bytecode  # noqa: E402
from mpigen.cache.folders import RACY  # noqa: E402

HERE = str(Path(__file__).resolve().parent.parent)


# The edits timed, each to the same blueprint, with a new value each time: a command (only
# that job's documents change) and its workers (the shape of its result may change too:
# mpigen.pipeline.results.shape).
EDITS = {
    "command": lambda text, n: text.replace("--epochs", f"--epochs{n}", 1),
    "workers": lambda text, n: re.sub(r"(?m)^(  workers: )\d+$", lambda m: f"{m[1]}{n % 60 + 2}", text, count=1),
}


def change(root: Path, edit: str, n: int) -> None:
    """One edit of one blueprint (the n-th: each gives a new value)."""
    path = root / "blueprints" / "job-00042.yaml"
    text = path.read_text()
    changed = EDITS[edit](text, n)
    if changed == text:
        raise SystemExit(f"the {edit} edit changed nothing in {path}")
    path.write_text(changed)


def timed(command: list[str], root: Path) -> float:
    """Wall seconds of one run (check exits 1: the change is not rendered yet)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env={**os.environ, "PYTHONPATH": HERE}, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}: {done.stderr.decode()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--overlays", action="store_true", help="render each blueprint for three overlays")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mpigen-incremental-") as name:
        keep_bytecode(Path(name))  # as an installed mpigen runs (bench/bench.py); the first render writes it
        root = Path(name) / "repo"
        root.mkdir()
        generate(root, args.jobs, 1)
        if not args.overlays:
            (root / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
                                              "blueprints: [blueprints]\noutput: out\n")
        os.environ["MPIGEN_CACHE_DIR"] = str(Path(name) / "cache")
        mpigen = [sys.executable, "-m", "mpigen"]
        timed([*mpigen, "render"], root)  # the folder written and the cache filled
        time.sleep(RACY)  # then checked, as a repository is between two edits: what it saw of the
        timed([*mpigen, "check"], root)  # folder kept (mpigen.cache.folders)
        walls: dict[str, list[float]] = {"full render (--no-cache)": []}
        n = 0
        for run in range(args.runs):
            n += 1
            change(root, "command", n)
            walls["full render (--no-cache)"].append(timed([*mpigen, "render", "--no-cache"], root))
            timed([*mpigen, "render"], root)  # the record of the last run brought up to date (--no-cache keeps none)
            for edit in EDITS:
                n += 1
                change(root, edit, n)
                walls.setdefault(f"render, a {edit} edit", []).append(timed([*mpigen, "render"], root))
                n += 1
                change(root, edit, n)  # check finds the folder one change behind
                walls.setdefault(f"check, a {edit} edit", []).append(timed([*mpigen, "check"], root))
                timed([*mpigen, "render"], root)  # and the folder brought up to date, untimed
    jobs = args.jobs * (3 if args.overlays else 1)
    full = statistics.median(walls["full render (--no-cache)"])
    print(f"| {jobs:,} jobs, one blueprint changed | median (min - max) | full render / this |")
    print("|---|---|---|")
    for what, values in walls.items():
        print(f"| {what} | {statistics.median(values):.2f} s ({min(values):.2f} - {max(values):.2f}) "
              f"| {full / statistics.median(values):.1f} |")


if __name__ == "__main__":
    main()
