"""What the API server refuses of the rendered objects before any pod runs, as far as the pretend
cluster models it (its pods are made from the objects with no API server in between):

- a container with two ports of one name: Kubernetes' pod validation refuses it
  (validateContainerPorts, pkg/apis/core/validation/validation.go: field.Duplicate on
  ports[i].name), for every pod template it stores (a StatefulSet's, a Job's: those the JobSet
  controller creates too), so the job's pods never exist;
- in a custom resource, a container with two ports of one containerPort and protocol (TCP when
  unset): the CRDs make containers[].ports a map keyed by both (x-kubernetes-list-type: map,
  x-kubernetes-list-map-keys [containerPort, protocol]: the JobSet CRD at
  kubernetes-sigs/jobset@08dfbdfd, config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml; the
  TrainingRuntime CRD at kubeflow/trainer@8c0f5059b, manifests/base/crds/; the MPIJob CRD at
  kubeflow/mpi-operator@caa3c47 (v0.8.2), manifests/base/kubeflow.org_mpijobs.yaml), whose keys
  the API server requires to be unique (ValidateListSetsAndMaps, k8s.io/apiextensions-apiserver
  pkg/apiserver/schema/listtype/validation.go), so the object is not created.
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.support.e2e.errors import CommandFailed

BUILT_IN_GROUPS = ("v1", "apps/v1", "batch/v1", "rbac.authorization.k8s.io/v1")


class NotAdmitted(CommandFailed):
    """The API server refuses a rendered object: the job never starts."""


def _containers(node: object) -> Iterator[dict]:
    """Every container of every pod template in the object, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                yield from (c for c in value if isinstance(c, dict))
            else:
                yield from _containers(value)
    elif isinstance(node, list):
        for item in node:
            yield from _containers(item)


def refusals(obj: dict) -> list[str]:
    """Why the API server refuses the object (empty when it does not, as far as modelled)."""
    custom = obj.get("apiVersion") not in BUILT_IN_GROUPS
    found = []
    for container in _containers(obj):
        names, keys = set(), set()
        for port in container.get("ports", []):
            where = f"{obj['kind']} {obj['metadata']['name']}: container {container.get('name')}"
            name, key = port.get("name"), (port.get("containerPort"), port.get("protocol", "TCP"))
            if name and name in names:
                found.append(f"{where}: ports: Duplicate value: name {name!r}")
            if custom and key in keys:
                found.append(f"{where}: ports: Duplicate value: containerPort {key[0]}, protocol {key[1]}")
            names.add(name)
            keys.add(key)
    return found


def admit(objects: list[dict]) -> None:
    """Raise NotAdmitted, saying why, for any object the API server refuses."""
    found = [reason for obj in objects for reason in refusals(obj)]
    if found:
        raise NotAdmitted("the API server refuses: " + "; ".join(found))
