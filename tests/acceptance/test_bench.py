"""The benchmark behind the tables of docs/performance.md runs as documented: `make bench` with
--against REV times this tree and another Git revision side by side, in one table."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.paths import ROOT

PERFORMANCE = ROOT / "docs" / "performance.md"


def test_bench_against_a_revision_prints_one_table_of_both_versions_and_their_ratio():
    doc = PERFORMANCE.read_text()
    assert 'make bench BENCH_FLAGS="--against ' in doc
    assert "bench/bench.py $(BENCH_FLAGS)" in (ROOT / "Makefile").read_text()
    done = subprocess.run([sys.executable, "bench/bench.py", "--jobs", "4", "--runs", "1", "--cold-runs", "1",
                           "--against", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| what | this version | HEAD | this version / HEAD |"
    rows = table[2:]
    assert [re.sub(r" \(\d+ files\)", "", row.split(" | ")[0]) for row in rows] == [
        "| 6 jobs, `mpigen render --stdout`", "| 6 jobs into a new output folder",
        "| 12 jobs, `mpigen render --stdout`", "| 12 jobs into a new output folder",
        "| one blueprint to stdout, cold start",
        "| the floor of that: libraries imported and models built, nothing rendered"]
    for row in rows:
        cells = row.strip("| ").split(" | ")
        assert len(cells) == 4 and re.fullmatch(r"\d+\.\d\d", cells[3]), row
    # the bound is on the cold start's ratio; the floor says how much of it is mpigen's to take away
    assert re.fullmatch(r"cold start: \d+\.\d\d of HEAD's; the floor alone: \d+\.\d\d of it",
                        done.stdout.splitlines()[-1])


def test_bench_of_two_targets_prints_them_side_by_side_with_their_ratio():
    """docs/performance.md's jobset-against-static figures: --targets A B, one table, A / B."""
    assert 'make bench BENCH_FLAGS="--targets jobset static"' in PERFORMANCE.read_text()
    done = subprocess.run([sys.executable, "bench/bench.py", "--jobs", "4", "--runs", "1", "--cold-runs", "1",
                           "--targets", "jobset", "static"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| what | --target jobset | --target static | --target jobset / --target static |"
    assert all(re.fullmatch(r"\d+\.\d\d", row.strip("| ").split(" | ")[3]) for row in table[2:])
    refused = subprocess.run([sys.executable, "bench/bench.py", "--targets", "jobset", "static", "--against", "HEAD"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "give one of them" in refused.stderr


def test_bench_of_incremental_renders_times_a_full_render_and_the_cached_render_and_check():
    """bench/incremental.py, which docs/performance.md names: one table, the full render
    first, each row with its ratio to it."""
    assert "python bench/incremental.py" in PERFORMANCE.read_text()
    done = subprocess.run([sys.executable, "bench/incremental.py", "--jobs", "50", "--runs", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table[0] == "| 50 jobs, one blueprint changed | median (min - max) | full render / this |"
    assert [row.split(" | ")[0] for row in table[2:]] == [
        "| full render (--no-cache)", "| render, a command edit", "| check, a command edit",
        "| render, a workers edit", "| check, a workers edit"]
    assert all(re.fullmatch(r"\d+\.\d", row.strip("| ").split(" | ")[2]) for row in table[2:])


def test_bench_prints_the_comparison_the_scaling_table_and_the_cold_start():
    """`make bench` with no flags: mpigen beside kustomize and Helm (left out here: the tests
    never fetch helm), the scaling table, and the cold start with its import times."""
    doc = PERFORMANCE.read_text()
    assert "    make bench\n" in doc and "| / mpigen into a new folder |" in doc
    done = subprocess.run([sys.executable, "bench/bench.py", "--jobs", "4", "--runs", "1", "--cold-runs", "1",
                           "--scale", "6", "12", "--no-compare"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| ")]
    assert rows[0] == "| what | time | peak RSS | / mpigen into a new folder |"
    assert [row.split(" | ")[0] for row in rows[1:3]] == ["| mpigen render --stdout",
                                                          "| mpigen render into a new output folder"]
    assert re.fullmatch(r"\| mpigen render into a new output folder \| [\d.]+ s \([\d.]+ - [\d.]+\) \| \d+ MiB \| 1\.00 \|",
                        rows[2])
    assert rows[3] == "| jobs | `--stdout` | into a new folder | folder per 1,000 jobs |"
    assert [row.split(" | ")[0] for row in rows[4:]] == ["| 6", "| 12"]
    assert any(line.startswith("- `mpigen --help`, cold start: ") for line in lines)
    assert any(line.startswith("- its floor (libraries imported and models built, nothing rendered): ")
               for line in lines)
    assert any(re.match(r"- one blueprint to stdout, imports \d+ ms: .*mpigen \d+ ms", line) for line in lines)
    assert not (ROOT / "bench" / "tools").exists() or "fetching" not in done.stdout
