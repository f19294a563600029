"""The Kubernetes spellings people bring to a blueprint, each mapped to the blueprint field that
says the same: one table, read by every unknown-key and wrong-type error of a blueprint
(mpigen.load.model), so that `replicas:` under spec gets "did you mean spec.workers?" rather
than the list of every key, and `env` written as a list of name/value pairs gets the mapping
to write instead, made of the user's own pairs.

`where` is the mapping the key is written in, as a field path with `[]` for the items of a
list (`spec.datasets[]`); `field` the blueprint field, whole (`spec.placement.worker.nodeSelector`).
tests/unit/load/test_kubernetes_spellings.py walks the table against the Blueprint model:
every `where` and `field` exists there, and no spelling is a key the model has where it is
written (it would never be unknown).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mpigen.errors import meant


@dataclass(frozen=True)
class Spelling:
    """A key as Kubernetes spells it, where people write it, and the blueprint's field."""

    where: str
    key: str
    field: str
    why: str  # what the blueprint field is, or what else the key's value becomes


SPELLINGS: tuple[Spelling, ...] = (
    Spelling("spec", "replicas", "spec.workers", "the number of worker pods; the launcher is one more"),
    Spelling("spec", "nodeSelector", "spec.placement.worker.nodeSelector",
             "spec.placement.launcher.nodeSelector for the launcher"),
    Spelling("spec", "tolerations", "spec.placement.worker.tolerations",
             "spec.placement.launcher.tolerations for the launcher"),
    Spelling("spec", "affinity", "spec.placement.worker.affinity", "spec.placement.launcher.affinity for the launcher"),
    Spelling("spec", "gpus", "spec.gpusPerWorker", "the GPUs of each worker, of spec.gpuResource"),
    Spelling("spec", "gpu", "spec.gpusPerWorker", "the GPUs of each worker, of spec.gpuResource"),
    Spelling("spec", "limits", "spec.resources.worker", "the workers' cpu and memory, requests and limits both"),
    Spelling("spec", "requests", "spec.resources.worker", "the workers' cpu and memory, requests and limits both"),
    Spelling("spec", "volumes", "spec.datasets", "each a volume with its mountPath: pvc, nfs, hostPath, csi, "
                                                 "configMap, secret, emptyDir or ephemeral"),
    Spelling("spec", "volumeMounts", "spec.datasets", "each a volume with its mountPath"),
    Spelling("spec", "serviceAccountName", "spec.serviceAccount.name", "the pods' ServiceAccount"),
    Spelling("spec", "priorityClassName", "spec.scheduling.priorityClass", "the PriorityClass of the job's pods"),
    Spelling("spec", "schedulerName", "spec.scheduling.gang.schedulerName", "the gang scheduler's name"),
    Spelling("spec", "securityContext", "spec.security", "runAsUser, fsGroup, capabilities, ..."),
    Spelling("spec", "hostNetwork", "spec.network.hostNetwork", "the pods on the node's network"),
    Spelling("spec", "args", "spec.command", "the program every rank runs, a list"),
    Spelling("spec", "containers", "spec.image", "and spec.command: a blueprint has one main container"),
    Spelling("spec", "backoffLimit", "spec.runPolicy.backoffLimit", "the launcher's retries"),
    Spelling("spec", "activeDeadlineSeconds", "spec.runPolicy.activeDeadlineSeconds", "the job's time limit"),
    Spelling("spec", "ttlSecondsAfterFinished", "spec.runPolicy.ttlSecondsAfterFinished",
             "how long a finished job stays"),
    Spelling("spec", "cleanPodPolicy", "spec.runPolicy.cleanPodPolicy", "what becomes of the workers at the end"),
    Spelling("spec", "mpiReplicaSpecs", "spec.workers", "with spec.image, spec.command and spec.resources: a "
                                                        "blueprint writes the job, not its pod templates"),
    Spelling("spec", "queueName", "spec.scheduling.queue", "the Kueue LocalQueue"),
    Spelling("spec", "imagePullSecret", "spec.imagePullSecrets", "a list of Secret names"),
    Spelling("spec", "shm", "spec.sharedMemory", "the size of /dev/shm"),
    Spelling("spec", "shmSize", "spec.sharedMemory", "the size of /dev/shm"),
    Spelling("spec", "slots", "spec.slotsPerWorker", "MPI ranks per worker"),
    Spelling("spec", "numWorkers", "spec.workers", "the number of worker pods"),
    Spelling("spec.resources", "limits", "spec.resources.worker", "the workers' cpu and memory (requests and "
                                                                  "limits both; GPUs are spec.gpusPerWorker)"),
    Spelling("spec.resources", "requests", "spec.resources.worker", "the workers' cpu and memory (requests and "
                                                                    "limits both; GPUs are spec.gpusPerWorker)"),
    Spelling("spec.resources", "cpu", "spec.resources.worker", "the workers' resources, by name: "
                                                               "resources: {worker: {cpu: ...}}"),
    Spelling("spec.resources", "memory", "spec.resources.worker", "the workers' resources, by name: "
                                                                  "resources: {worker: {memory: ...}}"),
    Spelling("spec.resources", "workers", "spec.resources.worker", "one worker's resources"),
    Spelling("spec.placement", "nodeSelector", "spec.placement.worker.nodeSelector",
             "spec.placement.launcher.nodeSelector for the launcher"),
    Spelling("spec.placement", "tolerations", "spec.placement.worker.tolerations",
             "spec.placement.launcher.tolerations for the launcher"),
    Spelling("spec.placement", "affinity", "spec.placement.worker.affinity",
             "spec.placement.launcher.affinity for the launcher"),
    Spelling("spec.placement.worker", "priorityClass", "spec.placement.worker.priorityClassName",
             "as Kubernetes spells it here"),
    Spelling("spec.datasets[]", "persistentVolumeClaim", "spec.datasets[].pvc", "the claim's name"),
    Spelling("spec.datasets[]", "claimName", "spec.datasets[].pvc", "the claim's name"),
    Spelling("spec.datasets[]", "path", "spec.datasets[].mountPath", "where the pods see it"),
    Spelling("spec.serviceAccount", "serviceAccountName", "spec.serviceAccount.name", "the ServiceAccount's name"),
    Spelling("metadata", "generateName", "metadata.name", "a blueprint's name is whole: mpigen names each run"),
)

# The mappings of name to value that Kubernetes writes as lists of {name, value}.
_LIST_OF_PAIRS = {"spec.env", "spec.datasets[].download.env"}


def spelled_field(where: str, key: str) -> str | None:
    """The blueprint field a key of the table, written where people write it, stands for."""
    return next((s.field for s in SPELLINGS if s.where == where and s.key == key), None)


def unknown_key_hint(where: str, key: str) -> str | None:
    """`; did you mean spec.workers? (a blueprint's spelling of replicas: the number of worker
    pods; ...)` for a key of the table written where people write it, else None."""
    for spelling in SPELLINGS:
        if spelling.where == where and spelling.key == key:
            return f"{meant(spelling.field)} (a blueprint's spelling of {key}: {spelling.why})"
    return None


def wrong_type_hint(field: str, value: Any) -> str | None:
    """For a mapping written in Kubernetes' shape (a list of name/value pairs), the mapping
    to write, made of the pairs written; else None."""
    if field not in _LIST_OF_PAIRS or not isinstance(value, list):
        return None
    pairs = [(item.get("name"), item.get("value")) for item in value if isinstance(item, dict)]
    shown = ", ".join(f"{name}: {_scalar(v)}" for name, v in pairs[:3] if isinstance(name, str))
    more = ", ..." if len(pairs) > 3 else ""
    example = f"{{{shown}{more}}}" if shown else "{NCCL_DEBUG: INFO}"
    return (f"; a blueprint writes {field} as a mapping of name to value, not Kubernetes' list of name/value "
            f"pairs: {field.rsplit('.', 1)[-1]}: {example}")


def _scalar(value: Any) -> str:
    """A value as a flow mapping's string: plain when YAML reads it back as that string, else quoted."""
    text = value if isinstance(value, str) else "" if value is None else str(value).lower() \
        if isinstance(value, bool) else str(value)
    return text if re.fullmatch(r"[A-Za-z_/][\w./-]*", text) and text.lower() not in _YAML_WORDS else json.dumps(text)


_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}  # YAML 1.1 reads them as non-strings
