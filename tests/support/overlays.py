"""What the overlay acceptance tests (tests/acceptance/overlays/) share: overlay and
mpigen.yaml heads, writing overlays and blueprints, rendering through the pipeline, the
objects and folders read back, a whole example repository, and `refused`."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import yaml

from tests.support.blueprints import blueprint_text
from tests.support.text import pos, write


OVERLAY_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
CONFIG_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
OPERATOR_LABELS = ("group_name", "mpi_job_name", "mpi_role_type")
DIGEST = "sha256:" + "0123456789abcdef" * 4


def at(path: str, text: str, needle: str, sub: str | None = None) -> str:
    line, column = pos(text, needle, sub)
    return f"{path}:{line}:{column}"


def overlay(name: str, body: str = "", folder: str = "overlays", file: str = "overlay.yaml") -> str:
    """Writes <folder>/<name>/<file> (an Overlay with `body`, given dedented) and returns its text."""
    return write(f"{folder}/{name}/{file}", OVERLAY_HEAD + textwrap.dedent(body))


blueprint = blueprint_text


def add_blueprint(name: str, **kwargs) -> str:
    return write(f"blueprints/{name}.yaml", blueprint(name, **kwargs))


def rendered(*overlays: str, paths=("blueprints",), **options):
    """Result of rendering `paths` under these overlays, through the real pipeline."""
    from mpigen.overlay.resolve import resolve
    from mpigen.pipeline.run import render_paths
    from mpigen.pipeline.settings import run_settings
    from mpigen.render.target import Options

    found = resolve(list(overlays), Path(".")) if overlays else []
    return render_paths([Path(p) for p in paths], run_settings(Options(**{"target": "static", **options}), found))


def objects_of(result, env: str | None = None) -> dict[tuple[str, str], dict]:
    """(kind, name) -> object, for one environment."""
    out = {}
    for item in result.objects:
        if env is None or item.env == env:
            obj = yaml.safe_load(item.text)
            key = (obj["kind"], obj["metadata"]["name"])
            assert key not in out
            out[key] = obj
    return out


def pod_spec(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def snapshot(root: Path) -> dict[str, tuple]:
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            state[rel] = ("dir",) if path.is_dir() else ("file", path.read_bytes())
    return state


def key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def index_paths(out: Path) -> set[str]:
    return set(json.loads((out / ".mpigen-index").read_text())["files"])


def refused(cli, previous, *args: str) -> list[str]:
    """Runs `mpigen render ARGS -o out` and `... --stdout`: both exit 2, print nothing on
    stdout and leave out/ as it was. Returns the error lines (the same for both)."""
    seen = []
    for where in (("-o", "out"), ("--stdout",)):
        done = cli("render", *args, *where)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        assert done.stdout == b""
        assert snapshot(Path("out")) == previous
        seen.append(done.lines("error"))
    assert seen[0] == seen[1]
    return seen[0]


def _repository(overlays=("dev", "prod"), extra: str = "") -> None:
    add_blueprint("one", namespace="team")
    add_blueprint("two", namespace="team")
    overlay("dev", "namespace: dev\npatches:\n  - patch: {spec: {workers: 1}}\n")
    overlay("prod", "labels: {env: prod}\n")
    write("mpigen.yaml", CONFIG_HEAD + f"blueprints: [blueprints]\noverlays: [{', '.join(overlays)}]\n"
                                       f"output: out\n{extra}")
