"""The default key strategy (docs/ssh.md): a fresh SSH key per run, made in the cluster by
the first replicated job, `ssh-keygen`, before any worker exists. Its pod makes the key in
spec.ssh.keygenImage, by default the job's own image (which has OpenSSH, since its workers
run sshd, but is often many gigabytes to pull for one command), and creates the Secret
<jobset>-ssh with kubectl, owned by the JobSet so that it goes with the run. A restarted
attempt replaces the key. Its ServiceAccount may create Secrets (Kubernetes cannot limit
`create` by name) and read and delete only that one; only the kubectl containers get its
token, never the job's image."""

from __future__ import annotations

from mpigen.compile.blueprint import least_privilege
from mpigen.compile.mpijob import LAUNCHER, MPIJob
from mpigen.render.parts import scripts
from mpigen.render.jobset.names import JOBSET_UID_LABEL, KEYGEN_JOB, keygen_name, secret_name
from mpigen.compile.names import object_meta

KEYS_VOLUME = "keys"
KEYS_MOUNT = "/keys"
MANIFEST = f"{KEYS_MOUNT}/secret.json"
KUBECTL_CACHE = f"--cache-dir={KEYS_MOUNT}/.kube"
TOKEN_VOLUME = "kube-api-access"
TOKEN_MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_SECONDS = 3607  # what the kubelet's automount asks for
# A small, fixed footprint: Kueue counts it, and quota namespaces require limits.
RESOURCES = {"limits": {"cpu": "100m", "memory": "128Mi"}}


def keygen_objects(job: MPIJob) -> list[dict]:
    """ServiceAccount, Role and RoleBinding <jobset>-ssh-keygen."""
    name, namespace = keygen_name(job), job.metadata.namespace
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": object_meta(job, name, {}),
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
                      {"apiGroups": [""], "resources": ["secrets"], "resourceNames": [secret_name(job)],
                       "verbs": ["get", "delete"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": object_meta(job, name, {}),
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
               "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}]}
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": object_meta(job, name, {})}
    return [account, role, binding]


def keygen_pod(job: MPIJob) -> dict:
    """The pod spec of the ssh-keygen replicated job."""
    launcher = job.spec.mpiReplicaSpecs[LAUNCHER].template.get("spec", {})
    image = job.source.ssh.keygenImage or launcher["containers"][0]["image"]
    kubectl = job.source.ssh.kubectlImage
    keys = {"name": KEYS_VOLUME, "mountPath": KEYS_MOUNT}
    token = {"name": TOKEN_VOLUME, "mountPath": TOKEN_MOUNT, "readOnly": True}
    env = [{"name": "JOBSET_UID", "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{JOBSET_UID_LABEL}']"}}}]
    generate = {"name": KEYGEN_JOB, "image": image,
                "command": ["/bin/sh", "-c", scripts.text("ssh-keygen.sh"), KEYGEN_JOB, secret_name(job),
                            job.metadata.namespace, job.metadata.name],
                "env": env, "resources": RESOURCES, "volumeMounts": [keys], "securityContext": least_privilege([])}
    delete = {"name": "delete-old-key", "image": kubectl,
              "command": ["kubectl", "delete", "secret", secret_name(job), f"--namespace={job.metadata.namespace}",
                          "--ignore-not-found", "--wait=false", KUBECTL_CACHE],
              "resources": RESOURCES, "volumeMounts": [keys, token], "securityContext": least_privilege([])}
    publish = {"name": "publish-key", "image": kubectl,
               "command": ["kubectl", "create", f"--filename={MANIFEST}", KUBECTL_CACHE],
               "resources": RESOURCES, "volumeMounts": [keys, token], "securityContext": least_privilege([])}
    pod = {"restartPolicy": "Never", "serviceAccountName": keygen_name(job), "automountServiceAccountToken": False,
           "initContainers": [generate, delete], "containers": [publish],
           "volumes": [{"name": KEYS_VOLUME, "emptyDir": {"medium": "Memory"}}, _token_volume()]}
    for key in ("securityContext", "imagePullSecrets", "nodeSelector", "tolerations", "priorityClassName"):
        if key in launcher:  # the job's user (ssh-keygen needs one the image knows) and where it may run
            pod[key] = launcher[key]
    return pod


def _token_volume() -> dict:
    """The API credentials, as the kubelet's automount projects them."""
    return {"name": TOKEN_VOLUME, "projected": {"defaultMode": 0o444, "sources": [
        {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1",
                                                                       "fieldPath": "metadata.namespace"}}]}}]}}
