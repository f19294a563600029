"""Parallel rendering gives the same bytes and the same errors as a serial one.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.ci_repository import ENV, POSITIONED, folder_bytes, mpigen
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT


# --- 4. parallel rendering ---------------------------------------------------------------------

def _bench():
    spec = importlib.util.spec_from_file_location("mpigen_bench", ROOT / "bench" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SERIAL = {"MPIGEN_PROCESSES": "1"}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    from mpigen.pipeline.pool import PARALLEL_THRESHOLD

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: mpigen renders serially whatever the size")
    root = tmp_path_factory.mktemp("generated")
    _bench().generate(root, 150, 11)
    config = yaml.safe_load((root / "mpigen.yaml").read_text())
    assert 150 * len(config["overlays"]) >= PARALLEL_THRESHOLD
    return root


def test_parallel_render_to_stdout_is_the_serial_bytes(generated):
    parallel = run_mpigen("render", "--stdout", cwd=generated, env=ENV)
    serial = run_mpigen("render", "--stdout", cwd=generated, env={**ENV, **SERIAL})
    assert parallel.returncode == serial.returncode == 0, parallel.stderr
    assert parallel.stdout.count(b"\n---\n") > 1000
    assert parallel.stdout == serial.stdout
    assert parallel.stderr == serial.stderr


def test_parallel_render_to_a_folder_is_the_serial_bytes(generated, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(generated, work)
    assert run_mpigen("render", "-o", "parallel", cwd=work, env=ENV).returncode == 0
    assert run_mpigen("render", "-o", "serial", cwd=work, env={**ENV, **SERIAL}).returncode == 0
    parallel, serial = folder_bytes(work / "parallel"), folder_bytes(work / "serial")
    assert len(parallel) > 150 * 3 * 6
    assert parallel == serial
    run = mpigen(work, "check", "-o", "serial")  # a parallel check of a serial render
    assert run.code == 0, run.out[:2000]


def test_parallel_and_serial_report_the_same_errors(generated, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(generated, work)
    blueprints = work / "blueprints"
    for name, pattern, replacement in (("job-00012.yaml", r"(?m)^  image: .*$", '  image: "NOT AN IMAGE"'),
                                       ("job-00077.yaml", r"(?m)^  workers: .*$", "  workers: 0"),
                                       ("job-00149.yaml", r"(?m)^  command:", "  commandd:")):
        text = (blueprints / name).read_text()
        text, count = re.subn(pattern, replacement, text, count=1)
        assert count == 1
        (blueprints / name).write_text(text)
    shutil.copy(blueprints / "job-00003.yaml", blueprints / "job-00120-copy.yaml")  # a duplicate, another chunk
    parallel = run_mpigen("render", "--stdout", cwd=work, env=ENV)
    serial = run_mpigen("render", "--stdout", cwd=work, env={**ENV, **SERIAL})
    assert parallel.returncode == serial.returncode == 2
    assert parallel.stdout == serial.stdout == b""
    lines = parallel.stderr.decode().splitlines()
    assert len(lines) >= 4 and all(POSITIONED.match(line) for line in lines), lines
    for name in ("job-00012", "job-00077", "job-00149", "job-00120-copy"):
        assert any(line.startswith(f"blueprints/{name}.yaml:") for line in lines), name
    assert parallel.stderr == serial.stderr
    check = run_mpigen("check", cwd=work, env=ENV)
    assert (check.returncode, check.stderr) == (2, serial.stderr)
