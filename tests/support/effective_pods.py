"""The pod templates a render holds, as the tests of what import carries compare them with
the hand-written MPIJob's: each template's volumes by name, the MPI container's mounts by
name and its env by name (tests/acceptance/importing/test_import_shapes.py).

Every target writes one pod template per role (the static target's StatefulSet and Job, the
MPIJob's replica specs, the JobSet's replicated jobs, the Trainer runtime's), and the contract
mounts every dataset on the launcher and every worker, so each template of a render is
compared with the same expectation."""

from __future__ import annotations

from typing import Any, Iterator

import yaml

# The MPI container of each target's pods: the operator's names, and the Trainer's `node`.
MPI_CONTAINERS = ("mpi-launcher", "mpi-worker", "node")


def pod_specs(node: Any) -> Iterator[dict]:
    """Every pod spec (a mapping with containers) under node, outermost first."""
    if isinstance(node, dict):
        if isinstance(node.get("containers"), list):
            yield node
            return
        for value in node.values():
            yield from pod_specs(value)
    elif isinstance(node, list):
        for item in node:
            yield from pod_specs(item)


def effective(spec: dict, names: set[str]) -> dict:
    """The parts of a pod spec that import carries, for the volumes and env names given:
    {volumes: {name: volume}, mounts: {name: mount}, env: {name: value}}."""
    main = next(c for c in spec["containers"] if c.get("name") in MPI_CONTAINERS)
    return {
        "volumes": {v["name"]: v for v in spec.get("volumes", []) if v["name"] in names},
        "mounts": {m["name"]: m for m in main.get("volumeMounts", []) if m["name"] in names},
        "env": {e["name"]: e.get("value") for e in main.get("env", []) if e["name"] in names},
    }


def rendered_pods(stream: bytes, names: set[str]) -> list[dict]:
    """effective() of every pod template of a rendered stream."""
    return [effective(spec, names) for doc in yaml.safe_load_all(stream) if doc for spec in pod_specs(doc)
            if any(c.get("name") in MPI_CONTAINERS for c in spec["containers"])]


def hand_written(mpijob: dict, role: str, names: set[str]) -> dict:
    template = mpijob["spec"]["mpiReplicaSpecs"][role]["template"]["spec"]
    return effective(template, names)
