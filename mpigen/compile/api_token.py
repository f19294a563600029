"""The Kubernetes API token of the job's own pods: not mounted where the pod never calls the API.

Kubernetes mounts the token of the pod's ServiceAccount (the namespace's `default` one when
the pod names none) into every container unless the pod says `automountServiceAccountToken:
false`. A worker, or a launcher that reaches the workers over SSH, needs no API, so its image
gets no credential. The pods that do call the API keep their token: the launcher of the MPI
Operator generations that reach the workers with kubectl exec (the static target's v1alpha2
one and the v1 MPIJob's: kubectl-delivery and kubexec.sh, through the launcher's Role;
shared/reference/mpi-operator.md 2.6, 3.6), and the jobset target's key generator, which
mounts its own token into its kubectl containers only (mpigen.render.jobset.keygen).

A pod that names a ServiceAccount (spec.serviceAccount, the cloud identity <job>-identity of
spec.serviceAccount.annotations, or a podTemplatePatch) keeps the cluster's default: the
account was named for what it grants, and some identity webhooks work through its token. A
podTemplatePatch that sets automountServiceAccountToken itself wins, either way.
"""

from __future__ import annotations

from mpigen.compile.mpijob import LAUNCHER, V2BETA1

TOKEN = "automountServiceAccountToken"
ACCOUNT_FIELDS = ("serviceAccountName", "serviceAccount")


def calls_api(api: str, role: str) -> bool:
    """Whether the pods of an MPIJob role of this API call the Kubernetes API: the launcher,
    except v2beta1's (ssh, no ServiceAccount, no RBAC: mpi-operator.md 4.7)."""
    return role == LAUNCHER and api != V2BETA1


def names_account(pod: dict) -> bool:
    return any(pod.get(key) for key in ACCOUNT_FIELDS)


def without_api_token(pod: dict) -> dict:
    """The pod spec of a pod that never calls the API, with its token off unless the blueprint
    named an account or said itself (see the module's docstring). Edits `pod` in place."""
    if TOKEN not in pod and not names_account(pod):
        pod[TOKEN] = False
    return pod
