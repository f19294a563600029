"""A TrainJob and its runtime expanded as the Trainer's controller does on creation
(pkg/runtime/core/trainingruntime.go NewObjects and RuntimeInfo at v2.3.0): the runtime's
defaults, newRuntimeInfo, the EnforceMLPolicy plugins (MPI's; PlainML's acts only without an
MPI, Torch or JAX policy, and is refused here), the pod network (JobSet's IdentifyPodNetwork),
SyncParallelCount, then Build: the MPI plugin's Secret and hostfile ConfigMap, and the JobSet.
The TrainJob gets the uid the API server would give it, its owner references point to. Trainer
v2.4's changes are the MPI plugin's and the JobSet builder's (mpi.py, jobset.py)."""

from __future__ import annotations

import copy
import uuid

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.trainer.info import identify_pod_network, new_runtime_info, sync_parallel_count, with_defaults
from tests.support.e2e.trainer.jobset import build_jobset
from tests.support.e2e.trainer.mpi import build, enforce_ml_policy

RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


def runtime_of(trainjob: dict, objects: list[dict]) -> dict:
    """The runtime the TrainJob's runtimeRef names (kind default ClusterTrainingRuntime)."""
    ref = trainjob["spec"]["runtimeRef"]
    kind = ref.get("kind", "ClusterTrainingRuntime")
    namespace = trainjob["metadata"].get("namespace", "default")
    found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == ref["name"]
             and (kind == "ClusterTrainingRuntime" or o["metadata"].get("namespace", "default") == namespace)]
    if len(found) != 1:
        raise Unsupported(f"TrainJob {trainjob['metadata']['name']}: {kind} {ref['name']} found {len(found)} times")
    return found[0]


def expand(trainjob: dict, runtime: dict, secret_exists: bool = False, version: str = "v2.3") -> list[dict]:
    """[Secret (unless it exists), hostfile ConfigMap, JobSet] of the TrainJob, which gets a uid,
    as Trainer `version` expands it."""
    trainjob["metadata"].setdefault("uid", str(uuid.uuid4()))
    spec = with_defaults(runtime["spec"])
    if spec.get("mlPolicy", {}).get("mpi") is None:
        raise Unsupported("only runtimes with an MPI policy are modelled")
    info = new_runtime_info(copy.deepcopy(trainjob), spec)
    enforce_ml_policy(info, trainjob, version)
    identify_pod_network(info, trainjob)
    sync_parallel_count(info)
    return [*build(info, trainjob, secret_exists), build_jobset(info, trainjob, version)]
