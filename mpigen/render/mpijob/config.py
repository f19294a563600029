"""The ConfigMap `<name>-config` the operator creates for an MPIJob, as it writes it once every
worker runs: only its data, which is what the API server counts against a ConfigMap's 1 MiB.

kubeflow.org/v2beta1, the MPI Operator (kubeflow/mpi-operator caa3c47, v0.8.2,
pkg/controller/mpi_job_controller.go newConfigMap and updateDiscoverHostsInConfigMap):
`hostfile`, a line a host (the launcher first with runLauncherAsWorker), `<fqdn> slots=<S>\\n`
for Open MPI and `<fqdn>:<S>\\n` for Intel MPI and MPICH, with fqdn `<host>.<job>.<namespace>.svc`
(and `.<domain>` when the operator runs with --cluster-domain, which mpigen cannot know: the
size is then a lower bound); `discover_hosts.sh`, `#!/bin/sh\\n` and `echo <fqdn>\\n` for the
launcher as a worker and for each running worker pod.

kubeflow.org/v1, the training-operator (kubeflow/trainer tag v1.9.0,
pkg/controller.v1/mpi/mpijob_controller.go newConfigMap and updateDiscoverHostsInConfigMap,
isGPULauncher in mpijob.go): `kubexec.sh`; `hostfile`, `<job>-launcher slots=<S>\\n` when a
launcher container's limits name a GPU, then `<job>-worker-<i> slots=<S>\\n`; and
`discover_hosts.sh`, `#!/bin/sh`, then `\\necho <job>-launcher:<S>\\n` for a GPU launcher and
`\\necho <pod>:<S>` for each running worker. S is slotsPerWorker, else 1.
"""

from __future__ import annotations

from mpigen.compile.mpijob import LAUNCHER, V1, V2BETA1, WORKER
from mpigen.kube.values import get, mapping, whole_number
from mpigen.render.kinds import Find

HYDRA = ("Intel", "MPICH")  # v2beta1's mpiImplementation values whose hostfile lines are host:slots


def operator_config_map(obj: dict, find: Find) -> list[dict]:
    """The ConfigMap the operator of obj's apiVersion creates for it, none for another version."""
    api, spec, meta = obj.get("apiVersion"), mapping(obj.get("spec")), mapping(obj.get("metadata"))
    name, namespace = meta.get("name"), meta.get("namespace") or "default"
    if api not in (V2BETA1, V1) or not isinstance(name, str):
        return []
    slots = whole_number(spec.get("slotsPerWorker"), default=1)
    workers = [f"{name}-worker-{i}" for i in range(whole_number(get(spec, "mpiReplicaSpecs", WORKER, "replicas"),
                                                                  default=0))]
    if api == V2BETA1:
        data = _v2beta1_data(spec, name, str(namespace), workers, slots)
    else:
        data = _v1_data(spec, name, workers, slots)
    return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-config"}, "data": data}]


def _v2beta1_data(spec: dict, name: str, namespace: str, workers: list[str], slots: int) -> dict:
    hosts = ([f"{name}-launcher"] if spec.get("runLauncherAsWorker") is True else []) + workers
    fqdns = [f"{host}.{name}.{namespace}.svc" for host in hosts]
    line = "{}:{}\n" if spec.get("mpiImplementation") in HYDRA else "{} slots={}\n"
    return {"hostfile": "".join(line.format(fqdn, slots) for fqdn in fqdns),
            "discover_hosts.sh": "#!/bin/sh\n" + "".join(f"echo {fqdn}\n" for fqdn in fqdns)}


def _v1_data(spec: dict, name: str, workers: list[str], slots: int) -> dict:
    gpu_launcher = _gpu_launcher(spec)
    container = f" --container {spec['mainContainer']}" if spec.get("mainContainer") else ""
    launcher = [f"{name}-launcher"] if gpu_launcher else []
    discover = f"\necho {name}-launcher:{slots}\n" if gpu_launcher else ""
    return {"kubexec.sh": f'#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl exec ${{POD_NAME}}{container} '
                          '-- /bin/sh -c "$*"',
            "hostfile": "".join(f"{host} slots={slots}\n" for host in launcher + workers),
            "discover_hosts.sh": "#!/bin/sh" + discover + "".join(f"\necho {pod}:{slots}" for pod in workers)}


def _gpu_launcher(spec: dict) -> bool:
    """isGPULauncher: a launcher container whose limits name a resource ending in .com/gpu or containing gpu."""
    containers = get(spec, "mpiReplicaSpecs", LAUNCHER, "template", "spec", "containers")
    containers = containers if isinstance(containers, list) else []
    return any("gpu" in key for container in containers
               for key in mapping(get(mapping(container), "resources", "limits")))
