"""StatefulSet <job>-worker (newWorker, reference section 2.5).

Workers idle in `sleep 365d` until mpirun reaches them through kubexec.sh; they mount
only kubexec.sh, because Open MPI's daemons check that the launch agent exists locally.
The launcher's kubectl execs into them; they never call the API themselves: no token
(mpigen.compile.api_token).
"""

from __future__ import annotations

from mpigen.compile.api_token import without_api_token
from mpigen.compile.mpijob import MPIJob, WORKER
from mpigen.compile.names import (CONFIG_MOUNT, CONFIG_VOLUME, KUBEXEC_KEY, KUBEXEC_MODE, config_name, object_meta,
                                  pod_template, role_labels, worker_name)


def new_worker(job: MPIJob) -> dict | None:
    """None when the worker template has no container (the controller then records
    `Resource "Worker" is missing in yaml` and creates nothing)."""
    replica = job.spec.mpiReplicaSpecs[WORKER]
    labels = role_labels(job, "worker")
    template, pod = pod_template(replica.template, labels)
    containers = pod.get("containers") or []
    if not containers:
        return None
    pod["restartPolicy"] = "Always"  # forced; Worker.restartPolicy is ignored
    main = containers[0]
    if not main.get("command"):
        main["command"] = ["sleep"]
        main["args"] = ["365d"]
    main.setdefault("volumeMounts", []).append({"name": CONFIG_VOLUME, "mountPath": CONFIG_MOUNT})
    pod.setdefault("volumes", []).append({
        "name": CONFIG_VOLUME,
        "configMap": {
            "name": config_name(job),
            "items": [{"key": KUBEXEC_KEY, "path": KUBEXEC_KEY, "mode": KUBEXEC_MODE}],
        },
    })
    without_api_token(pod)
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": object_meta(job, worker_name(job), labels),
        "spec": {
            "podManagementPolicy": "Parallel",
            "replicas": replica.replicas,
            "selector": {"matchLabels": dict(labels)},
            "serviceName": worker_name(job),
            "template": template,
        },
    }
