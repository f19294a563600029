"""The shipped health checks run by real interpreters: an Argo CD Lua check (lupa, Lua 5.4)
as argocd-cm holds it, and Flux's healthCheckExprs (cel-python) as kustomize-controller
evaluates them."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import celpy
import yaml
from lupa import LuaRuntime

STATES = ("inProgress", "failed", "current")


def argo_cd_check(path: Path, key: str) -> Callable[[dict], dict]:
    """The Lua health check under `key` of the argocd-cm fragment at `path`, as a function
    of an object to its {status, message}."""
    script = yaml.safe_load(path.read_text())["data"][key]
    lua = LuaRuntime(unpack_returned_tuples=True)
    check = lua.execute(f"return function(obj)\n{script}\nend")

    def run(obj: dict) -> dict:
        return dict(check(lua.table_from(obj, recursive=True)).items())

    return run


def flux_programs(exprs: dict) -> dict:
    """One healthCheckExprs entry, compiled: state -> program."""
    env = celpy.Environment()
    return {state: env.program(env.compile(exprs[state])) for state in STATES}


def flux_state(programs: dict, obj: dict) -> str:
    """The one expression that holds: exactly one must, so the result does not depend on
    the order in which kustomize-controller evaluates them."""
    activation = {key: celpy.json_to_cel(value) for key, value in obj.items()}
    holding = [state for state, program in programs.items() if bool(program.evaluate(activation))]
    assert len(holding) == 1, holding
    return holding[0]


def flux_health_exprs(path: Path) -> list[dict]:
    """The healthCheckExprs of a docs/flux/*-health.yaml: those its Kustomization's one patch
    gives the Kustomization of mpigen's that applies the jobs."""
    patch, = yaml.safe_load(path.read_text())["spec"]["patches"]
    return yaml.safe_load(patch["patch"])["spec"]["healthCheckExprs"]
