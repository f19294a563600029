"""ServiceAccount, Role and RoleBinding <job>-launcher (reference sections 1.5 and 2.4).

The launcher's kubectl needs to list and watch pods (the kubectl-delivery init container
waits for the workers to be Ready) and to exec into exactly the job's worker pods.
"""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.compile.names import app_labels, launcher_name, object_meta, worker_pod_names


def new_launcher_service_account(job: MPIJob) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": object_meta(job, launcher_name(job), app_labels(job)),
    }


def new_launcher_role(job: MPIJob) -> dict:
    exec_rule = {"verbs": ["create"], "apiGroups": [""], "resources": ["pods/exec"]}
    pods = worker_pod_names(job)
    if pods:  # with no workers the controller's list is nil and the key is omitted
        exec_rule["resourceNames"] = pods
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": object_meta(job, launcher_name(job), app_labels(job)),
        "rules": [
            {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]},
            exec_rule,
        ],
    }


def new_launcher_role_binding(job: MPIJob) -> dict:
    name = launcher_name(job)
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": object_meta(job, name, app_labels(job)),
        "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": job.metadata.namespace}],
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
    }
