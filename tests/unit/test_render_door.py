"""render/'s door is whole: the import contract that keeps render's own packages out of reach
(pyproject.toml, `render-door`) forbids every package under mpigen/render/ (each target's and
parts/), from every package of mpigen outside render/, so that a new target or package is not
left out of it; and render/ keeps at most eight modules beside its packages (issue: the
targets behind one door, not a second hallway)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "mpigen"
RENDER = PACKAGE / "render"


def contract(contract_id: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return next(c for c in config["tool"]["importlinter"]["contracts"] if c["id"] == contract_id)


def dotted(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_the_door_contract_forbids_every_package_of_render_from_every_package_outside_it():
    door = contract("render-door")
    inside = sorted(dotted(p) for p in RENDER.iterdir() if (p / "__init__.py").exists())
    outside = sorted(dotted(p) for p in PACKAGE.iterdir() if (p / "__init__.py").exists() and p != RENDER) \
        + sorted(dotted(p) for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert sorted(door["forbidden_modules"]) == inside
    assert sorted(door["source_modules"]) == sorted(outside)
    assert door.get("allow_indirect_imports") is True  # through the table (render.targets) is the door


def test_render_keeps_at_most_eight_modules_beside_its_packages():
    modules = sorted(p.name for p in RENDER.glob("*.py"))
    assert len(modules) <= 8, modules
