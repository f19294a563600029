"""The repositories of the cache's tests (tests/acceptance/cache/), written from a plain
description, and what those tests read back: the cache's entries, an output folder's files,
and a run of mpigen in this process."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from mpigen.cache.store import FORMAT
from mpigen.cli.main import main
from tests.support.blueprints import blueprint, blueprint_text

# One blueprint document per variant: valid ones, an error (no workers), and one whose name
# another file may use too (a duplicate across files, found by the cross-file check).
VARIANTS = {
    "valid": {"image": "registry.example.com/train:1", "workers": 2, "command": ["python", "train.py"]},
    "gpus": {"image": "registry.example.com/train:2", "workers": 3, "gpusPerWorker": 2,
             "command": ["python", "train.py"], "env": {"NCCL_DEBUG": "INFO"}},
    "pytorch": {"framework": "pytorch", "image": "pytorch/pytorch:2.3.0", "workers": 1,
                "command": ["python", "ddp.py"]},
    "invalid": {"image": "registry.example.com/train:1", "workers": 0, "command": ["python", "train.py"]},
    "unknown-field": {"image": "registry.example.com/train:1", "workers": 1, "command": ["true"], "wrokers": 1},
}
OVERLAYS = {
    "dev": {"namespace": "ml-dev", "labels": {"env": "dev"}, "patches": [{"patch": {"spec": {"workers": 1}}}]},
    "prod": {"labels": {"env": "prod"},
             "patches": [{"target": {"name": "job-a*"}, "patch": {"spec": {"workers": 4}}}]},
}


def blueprint_documents(docs: list[tuple[str, str, str | None]]) -> str:
    """A blueprint file of these documents, each (name, variant, namespace or None)."""
    return "---\n".join(yaml.safe_dump(blueprint(name, namespace=namespace, **VARIANTS[variant]), sort_keys=False)
                        for name, variant, namespace in docs)


def write_repository(root: Path, state: dict) -> None:
    """Make `root` hold the repository `state` describes (files that are no longer in it removed):
    {"blueprints": {file: [(name, variant, namespace)]}, "overlays": {name: patch count},
    "config": {"target": ..., "gitops": ...}, "broken": bool (a file of broken YAML beside them)}."""
    folder = root / "blueprints"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {name: blueprint_documents(docs) for name, docs in state["blueprints"].items()}
    if state["broken"]:
        wanted["notes.yaml"] = "notes: [unclosed\n"
    for path in [p for p in folder.rglob("*") if p.is_file()]:
        if path.relative_to(folder).as_posix() not in wanted:
            path.unlink()
    for name, text in wanted.items():
        if not (folder / name).exists() or (folder / name).read_text() != text:
            (folder / name).parent.mkdir(exist_ok=True)
            (folder / name).write_text(text)
    for name, patches in state["overlays"].items():
        body = dict(OVERLAYS[name], patches=OVERLAYS[name]["patches"][:patches])
        (root / "overlays" / name).mkdir(parents=True, exist_ok=True)
        (root / "overlays" / name / "overlay.yaml").write_text(
            yaml.safe_dump({"apiVersion": "mpigen.dev/v1alpha1", "kind": "Overlay", **body}, sort_keys=False))
    config = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "Config", "blueprints": ["blueprints"],
              "output": "out", **state["config"]}
    if state["overlays"]:
        config["overlays"] = sorted(state["overlays"])
    (root / "mpigen.yaml").write_text(yaml.safe_dump(config, sort_keys=False))


def entries(cache: Path) -> list[Path]:
    return sorted((cache / FORMAT).glob("*/*/*")) if (cache / FORMAT).is_dir() else []


def repository(root: Path, count: int = 3) -> None:
    (root / "bp").mkdir(parents=True)
    for index in range(count):
        (root / "bp" / f"job{index}.yaml").write_text(blueprint_text(f"job{index}", workers=index + 1))
    (root / "bp" / "broken.yaml").write_text("notes: [unclosed\n")  # a warning, cached with its file's result


def run(root: Path, argv: list[str], namespace: str | None, capsysbinary) -> tuple[int, bytes, bytes]:
    """`mpigen ARGV` in this process, in `root`: exit code, standard output, standard error."""
    here = os.getcwd()
    capsysbinary.readouterr()
    os.chdir(root)
    if namespace:
        os.environ["ARGOCD_APP_NAMESPACE"] = namespace
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    finally:
        os.environ.pop("ARGOCD_APP_NAMESPACE", None)
        os.chdir(here)
    out, err = capsysbinary.readouterr()
    return code, out, err


def folder(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()} \
        if path.exists() else {}
