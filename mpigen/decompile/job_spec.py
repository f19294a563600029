"""`mpigen import`, the job-level fields: the replica specs' shape, restart policies, the
MPI implementation, the run policy and v2beta1's own fields, each generation with its own
fields, defaults and validation (shared/reference/mpi-operator.md 2.1, 3.1 and 4.1).
"""

from __future__ import annotations

from typing import Any

from mpigen.compile.mpijob import V1, V1ALPHA2, V2BETA1
from mpigen.decompile.gang import gang

# The fields of each generation's spec and runPolicy (types.go of each; 2.1, 3.1, 4.1).
SPEC_FIELDS = {
    V1ALPHA2: ("slotsPerWorker", "backoffLimit", "activeDeadlineSeconds", "cleanPodPolicy", "mpiReplicaSpecs",
               "mainContainer", "runPolicy", "mpiDistribution"),
    V1: ("slotsPerWorker", "cleanPodPolicy", "mpiReplicaSpecs", "mainContainer", "runPolicy"),
    V2BETA1: ("slotsPerWorker", "runLauncherAsWorker", "runPolicy", "sshAuthMountPath", "launcherCreationPolicy",
              "mpiImplementation", "mpiReplicaSpecs"),
}
RUN_POLICY_FIELDS = {
    V1ALPHA2: ("cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit",
               "schedulingPolicy"),
    V1: ("cleanPodPolicy", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit", "schedulingPolicy",
         "suspend", "managedBy"),
}
RUN_POLICY_FIELDS[V2BETA1] = RUN_POLICY_FIELDS[V1]
IMPLEMENTATION_FIELD = {V1ALPHA2: "mpiDistribution", V2BETA1: "mpiImplementation"}
IMPLEMENTATIONS = {V1ALPHA2: {"OpenMPI": "OpenMPI", "IntelMPI": "IntelMPI", "MPICH": "MPICH"},
                   V2BETA1: {"OpenMPI": "OpenMPI", "Intel": "IntelMPI", "MPICH": "MPICH"}}
# The restart policy each role's pods get from a blueprint (v1alpha2: the launcher Job of the
# v1alpha2 controller's objects; v1 and v2beta1: the MPIJob resource mpigen writes), and what the MPIJob's own
# says once defaulted (None: whatever it says is overwritten).
RENDERED_RESTART = {V1ALPHA2: {"Launcher": "OnFailure", "Worker": None},
                    V1: {"Launcher": "Never", "Worker": "Never"},
                    V2BETA1: {"Launcher": "OnFailure", "Worker": "Never"}}


def read_replicas(r) -> bool:
    """The replica specs' shape, as the operator and its API validate it."""
    loc = ("spec", "mpiReplicaSpecs")
    replicas = r.mapping(loc)
    if "Launcher" not in replicas:
        r.refuse(loc if loc[1] in r.mapping(("spec",)) else ("spec",), "an MPIJob needs mpiReplicaSpecs with a "
                                                                      "Launcher")
        return False
    for role in replicas:
        if role not in ("Launcher", "Worker"):
            if r.api == V1ALPHA2:
                r.lost(loc + (role,), f"the replica type {role!r} (the operator runs only Launcher and Worker)")
            else:
                r.refuse(loc + (role,), f"{role!r} is not a replica type; the operator accepts Launcher and Worker")
            continue
        for key in r.mapping(loc + (role,)):
            if key not in ("replicas", "template", "restartPolicy"):
                r.lost(loc + (role, key), "not a field of a replica spec (the API server drops it)")
    count = r.get(loc + ("Launcher", "replicas"), 1)
    if count != 1 or isinstance(count, bool):
        r.refuse(loc + ("Launcher", "replicas"), "an MPIJob has exactly one launcher: replicas must be 1")
    workers = r.get(loc + ("Worker", "replicas"))
    if "Worker" not in replicas or workers is None:
        why = ("the v1alpha2 operator needs Worker.replicas (it fails on a job without it)" if r.api == V1ALPHA2
               else "a blueprint needs at least one worker; a job without workers cannot be imported")
        r.refuse(loc + ("Worker",) if "Worker" in replicas else loc, why)
        return False
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        r.refuse(loc + ("Worker", "replicas"), "Worker.replicas must be a whole number of at least 1")
        return False
    return True


def restart_policies(r) -> None:
    for role, rendered in RENDERED_RESTART[r.api].items():
        loc = ("spec", "mpiReplicaSpecs", role, "restartPolicy")
        value = r.get(loc)
        if value is not None and not isinstance(value, str):
            r.refuse(loc, "a restart policy is a string: Never, OnFailure, Always or ExitCode")
            continue
        if r.api == V2BETA1 and value not in (None, "Never", "OnFailure"):
            r.refuse(loc, f"the v2beta1 operator accepts Never and OnFailure, not {value!r}")
            continue
        if r.api == V1ALPHA2 and role == "Launcher" and value != "Never":
            continue  # the v1alpha2 default: OnFailure unless Never
        if rendered is not None and value not in (None, rendered):
            r.lost(loc, f"the {role.lower()}'s restart policy {value} (a blueprint's {role.lower()} pods restart "
                        f"{rendered})")


def implementation_of(r, spec: dict) -> str:
    key = IMPLEMENTATION_FIELD.get(r.api)
    if key is None or spec.get(key) is None:
        return "OpenMPI"
    known = IMPLEMENTATIONS[r.api]
    if not isinstance(spec[key], str) or spec[key] not in known:
        r.refuse(("spec", key), f"unknown MPI implementation; the operator knows {', '.join(known)}")
        return "OpenMPI"
    r.came_from(("mpiImplementation",), ("spec", key))
    return known[spec[key]]


def run_policy(r, spec: dict, out: dict, queue) -> None:
    loc = ("spec", "runPolicy")
    policy = r.mapping(loc)
    if "failurePolicy" in policy and r.failure_policy:
        result_policy = {"failurePolicy": policy["failurePolicy"]}
        r.came_from(("runPolicy", "failurePolicy"), loc + ("failurePolicy",))
    else:
        result_policy = {}
    for key in policy:
        if key not in RUN_POLICY_FIELDS[r.api] and key not in result_policy:
            r.lost(loc + (key,), f"not a field of the {r.api} runPolicy (the API server drops it)")
    result: dict[str, Any] = dict(result_policy)
    for key in ("backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished", "cleanPodPolicy"):
        top = key in spec and key in SPEC_FIELDS[r.api]
        if key in policy and not (r.api == V1ALPHA2 and key in ("ttlSecondsAfterFinished", "cleanPodPolicy")):
            result[key] = policy[key]
            r.came_from(("runPolicy", key), loc + (key,))
        elif top:
            result[key] = spec[key]
            r.came_from(("runPolicy", key), ("spec", key))
    if r.api == V1ALPHA2:
        if "ttlSecondsAfterFinished" in policy:
            r.differs(loc + ("ttlSecondsAfterFinished",), "the v1alpha2 operator ignores it, and so does the "
                                                          "imported blueprint (its ttlSecondsAfterFinished would "
                                                          "delete the launcher Job); add it by hand if you want that")
        if "cleanPodPolicy" in policy and policy["cleanPodPolicy"] != result.get("cleanPodPolicy", "None"):
            r.differs(loc + ("cleanPodPolicy",), "the v1alpha2 operator reads spec.cleanPodPolicy, not this one, "
                                                 "and so does the imported blueprint")
    if "schedulingPolicy" in policy:
        gang(r, out)
    if policy.get("managedBy") not in (None, "", "kubeflow.org/mpi-operator") \
            and not out.get("scheduling", {}).get("multiKueue"):  # mpigen.decompile.own_objects read it
        r.lost(loc + ("managedBy",), f"runPolicy.managedBy {policy['managedBy']!r}")
    if policy.get("suspend") is True and queue is None:  # with a Kueue queue, suspend is Kueue's
        out["state"] = "completed"
        r.came_from(("state",), loc + ("suspend",))
    if result:
        out["runPolicy"] = result


def v2beta1_fields(r, spec: dict, out: dict, implementation: str) -> None:
    if r.api != V2BETA1:
        return  # the others have none of these (an API server drops them: reported as unknown)
    if spec.get("sshAuthMountPath") not in (None, "/root/.ssh"):
        out.setdefault("security", {})["sshAuthMountPath"] = spec["sshAuthMountPath"]
        r.came_from(("security",), ("spec", "sshAuthMountPath"))
    # The blueprint's default waits for Hydra's workers (IntelMPI, MPICH) and not for Open MPI's;
    # the operator's default is AtStartup, and it waits for any other value.
    waits = spec.get("launcherCreationPolicy", "AtStartup") != "AtStartup"
    if waits != (implementation != "OpenMPI"):
        out["launcher"] = {"waitForWorkers": waits}
        r.came_from(("launcher",), ("spec", "launcherCreationPolicy"))
    if spec.get("runLauncherAsWorker") is True and r.launcher_as_worker:
        out.setdefault("launcher", {})["runAsWorker"] = True
        r.came_from(("launcher", "runAsWorker"), ("spec", "runLauncherAsWorker"))
    elif spec.get("runLauncherAsWorker") not in (None, False):
        r.lost(("spec", "runLauncherAsWorker"), "runLauncherAsWorker (the launcher's template would have to "
                                                "match the workers'; set spec.launcher.runAsWorker by hand)")
