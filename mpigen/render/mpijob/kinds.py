"""The MPIJob (kubeflow.org, any version) as mpigen.render.kinds describes it: a run (the
operator makes its launcher), whose replica specs are its pods (the Launcher's replicas
default to 1, the Worker's to 0), whose Worker replicas are its workers, each with
slotsPerWorker slots (the operator's default 1); a suspended MPIJob runs nothing; Kueue
manages a v2beta1 one. Its schema is the CustomResourceDefinition mpigen generates
(mpigen.render.mpijob.crd) for v2beta1 and v1. Its operator creates the ConfigMap
mpigen.render.mpijob.config writes."""

from __future__ import annotations

import importlib

from mpigen.compile.mpijob import LAUNCHER, V1, V2BETA1, WORKER
from mpigen.kube.kueue_immutable import JOB_RULES, Rule
from mpigen.kube.values import get, mapping, whole_number
from mpigen.render.kinds import Admission, Find, Kind, Pods
from mpigen.render.mpijob.config import operator_config_map

GROUP = "kubeflow.org"
# The CRD's module (its typed spec models and the Kubernetes pod schema), imported by its path
# only when a schema or --with-crd asks for it: every other run would build its models at start-up.
CRD = "mpigen.render.mpijob.crd"


def _suspended(spec: dict) -> bool:
    return get(spec, "runPolicy", "suspend") is True


def pods(obj: dict, find: Find) -> Pods:
    """(replicas, pod spec) of each replica spec."""
    spec = mapping(obj.get("spec"))
    if _suspended(spec):
        return []
    out = []
    for role, replica in mapping(spec.get("mpiReplicaSpecs")).items():
        replica = mapping(replica)
        count = whole_number(replica.get("replicas"), default=1 if role == LAUNCHER else 0)
        out.append((count, mapping(get(replica, "template", "spec"))))
    return out


def workers(obj: dict, find: Find) -> int:
    spec = mapping(obj.get("spec"))
    if _suspended(spec):
        return 0
    return whole_number(get(spec, "mpiReplicaSpecs", WORKER, "replicas"), default=0)


def slots(obj: dict, find: Find) -> int:
    """slotsPerWorker (default 1) per worker."""
    return whole_number(get(obj, "spec", "slotsPerWorker"), default=1) * workers(obj, find)


def schema(api: str, kube_version: str) -> dict | None:
    """The openAPIV3Schema of the CRD mpigen generates for api, against kube_version's pod template."""
    if api not in (V2BETA1, V1):
        return None
    return importlib.import_module(CRD).new_crd(api, kube_version)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def kueue(api: str) -> tuple[Rule, ...]:
    """Kueue's rules of a job for the MPI Operator's v2beta1, the one version its kubeflow.org/mpijob
    integration manages (pkg/controller/jobs/mpijob, v0.19.2); none for the training-operator's v1."""
    return JOB_RULES if api == V2BETA1 else ()


# Kueue's RunWithPodSetsInfo merges into the template of every replica spec
# (pkg/controller/jobs/mpijob/mpijob_controller.go, v0.19.2).
# The training-operator's kubeflow.org/v1 controller appends its kubectl-delivery init container
# to the launcher's pod, with no securityContext (reference/mpi-operator.md, section 3.7:
# TO@v1.9.0 newLauncher; the image is its --mpi-kubectl-delivery-image, default this one).
KUBECTL_DELIVERY = {"name": "kubectl-delivery", "image": "kubeflow/kubectl-delivery:latest",
                    "imagePullPolicy": "IfNotPresent"}


def pod_additions(obj: dict, path: str) -> list[dict]:
    """The init container the v1 controller adds to the launcher's pods."""
    if obj.get("apiVersion") == V1 and path.endswith(f".{LAUNCHER}.template"):
        return [dict(KUBECTL_DELIVERY)]
    return []


def pod_sets(obj: dict, find: Find) -> int | None:
    """One pod set per replica type, Launcher and Worker, that the v2beta1 MPIJob has (Kueue
    v0.19.2, pkg/controller/jobs/mpijob/mpijob_controller.go PodSets, orderedReplicaTypes);
    None for the training-operator's v1, which that integration does not manage."""
    if obj.get("apiVersion") != V2BETA1:
        return None
    replicas = mapping(get(obj, "spec", "mpiReplicaSpecs"))
    return sum(1 for role in (LAUNCHER, WORKER) if replicas.get(role) is not None)


TEMPLATES = (".spec.mpiReplicaSpecs[].template",)
ADMISSION = Admission(TEMPLATES, ("spec", "runPolicy", "suspend"), merge_patch=True)
MPIJOB = Kind(GROUP, "MPIJob", "mpijobs", run=True, pods=pods, workers=workers, slots=slots, admission=ADMISSION,
              kueue=kueue, schema=schema, pod_templates=TEMPLATES,
              pod_additions=pod_additions, creates=operator_config_map, pod_sets=pod_sets)
KINDS = (MPIJOB,)
