"""Same input, same bytes: whatever PYTHONHASHSEED, TZ or locale the process runs with."""

from __future__ import annotations

import os

from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT

ENVIRONMENTS = [
    {"PYTHONHASHSEED": "1", "TZ": "UTC", "LC_ALL": "C.UTF-8"},
    {"PYTHONHASHSEED": "777", "TZ": "Asia/Tokyo", "LC_ALL": "C"},
    {"PYTHONHASHSEED": "random", "TZ": "America/Los_Angeles", "LANG": "de_DE.UTF-8"},
]


def render(extra_env: dict, *args: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LANG", "TZ", "PYTHONHASHSEED")}
    env.update(extra_env)
    done = run_mpigen("render", "blueprints", *args, cwd=ROOT, env=env, check=True)
    return done.stdout


def test_stream_bytes_do_not_depend_on_hash_seed_time_zone_or_locale():
    outputs = {render(env, "--stdout") for env in ENVIRONMENTS}
    assert len(outputs) == 1


def test_folder_bytes_do_not_depend_on_hash_seed_time_zone_or_locale(tmp_path):
    trees = []
    for i, env in enumerate(ENVIRONMENTS):
        out = tmp_path / f"out{i}"
        render(env, "-o", str(out))
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert trees[0] == trees[1] == trees[2]


def test_output_does_not_depend_on_where_the_repository_is(tmp_path):
    import shutil

    copy = tmp_path / "elsewhere"
    shutil.copytree(ROOT / "blueprints", copy / "blueprints")
    shutil.copy2(ROOT / "mpigen.yaml", copy / "mpigen.yaml")  # its targets rule applies to a PATH too
    done = run_mpigen("render", "blueprints", "--stdout", cwd=copy, check=True)
    assert done.stdout == render(ENVIRONMENTS[0], "--stdout")
