"""What the Trainer's TrainJob webhook refuses (Kubeflow Trainer v2.3.0: plugins/mpi/mpi.go
Validate, plugins/jobset/jobset.go Validate, the part about runtimePatches and the MPI policy):
each message as the webhook words it, with its field path.

- MPI: the trainer's env must not set the reserved names (constants.MPIReservedEnvNames; v2.4 adds the
  PRRTE twins, kubeflow/trainer#4029); with
  runLauncherAsNode and numNodes >= 2 the runtime must have both the `launcher` and `node` jobs.
- JobSet: runtimePatches[].manager a domain-prefixed path; each patched replicatedJob exists in
  the runtime; each patched container and init container exists in that job; a patch sets no env
  on the containers dataset-initializer, model-initializer and node."""

from __future__ import annotations

import re

RESERVED_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames",
                "OMPI_MCA_orte_set_default_slots")
# Trainer v2.4 reserves the PRRTE twins too (kubeflow/trainer#4029).
RESERVED_ENV_V24 = RESERVED_ENV + ("PRTE_MCA_prte_default_hostfile", "PRTE_MCA_prte_keep_fqdn_hostnames",
                                   "PRTE_MCA_prte_set_default_slots", "PRTE_MCA_plm_ssh_args")
NO_ENV_CONTAINERS = ("dataset-initializer", "model-initializer", "node")
# validation.IsDomainPrefixedPath: a DNS-1123 subdomain, "/", a non-empty path.
DOMAIN_PREFIXED = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/\S+$")


def _containers(runtime_spec: dict) -> dict[str, set[str]]:
    """Each replicatedJob's container and init container names."""
    out = {}
    for rjob in runtime_spec["template"]["spec"]["replicatedJobs"]:
        pod = rjob["template"]["spec"]["template"]["spec"]
        out[rjob["name"]] = {c["name"] for c in [*pod.get("initContainers", []), *pod.get("containers", [])]}
    return out


def _mpi_errors(trainjob: dict, runtime_spec: dict, jobs: dict[str, set[str]], version: str) -> list[str]:
    errors = []
    trainer = trainjob["spec"].get("trainer") or {}
    mpi = runtime_spec.get("mlPolicy", {}).get("mpi")
    if mpi is None:
        return errors
    if trainer.get("numNodes", 1) >= 2 and mpi.get("runLauncherAsNode") and not {"launcher", "node"} <= set(jobs):
        errors.append("spec.trainer.numNodes: must have 1 when MPI trainingRuntime with enabled runLauncherAsNode "
                      "does not have either launcher and node")
    reserved = sorted({e["name"] for e in trainer.get("env", []) if e["name"] in (RESERVED_ENV_V24 if version == "v2.4" else RESERVED_ENV)})
    if reserved:
        errors.append(f"spec.trainer.env: must not have reserved envs, invalid envs configured: {reserved}")
    return errors


def _patch_errors(trainjob: dict, jobs: dict[str, set[str]]) -> list[str]:
    errors = []
    for patch in trainjob["spec"].get("runtimePatches", []):
        if not DOMAIN_PREFIXED.match(patch.get("manager", "")):
            errors.append(f"spec.runtimePatches.manager: {patch.get('manager')!r} is not a domain-prefixed path")
        spec = patch.get("trainingRuntimeSpec", {}).get("template", {}).get("spec") or {}
        for rjob in spec.get("replicatedJobs", []):
            if rjob["name"] not in jobs:
                errors.append("spec.runtimePatches: must not have replicated job that doesn't exist in the runtime "
                              "job template")
                continue
            pod = rjob.get("template", {}).get("spec", {}).get("template", {}).get("spec") or {}
            for key, what in (("initContainers", "initContainer"), ("containers", "container")):
                for container in pod.get(key, []):
                    if container["name"] not in jobs[rjob["name"]]:
                        errors.append(f"spec.runtimePatches: must not have {what} that doesn't exist in the "
                                      f"runtime job {rjob['name']}")
                    elif key == "containers" and container.get("env") and container["name"] in NO_ENV_CONTAINERS:
                        errors.append("spec.runtimePatches: must not have envs for the dataset-initializer, "
                                      "model-initializer, node containers")
    return errors


def webhook_errors(trainjob: dict, runtime: dict, version: str = "v2.3") -> list[str]:
    jobs = _containers(runtime["spec"])
    return [*_mpi_errors(trainjob, runtime["spec"], jobs, version), *_patch_errors(trainjob, jobs)]
