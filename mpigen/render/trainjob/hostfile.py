"""The hostfile ConfigMap `<trainjob>-mpi-hostfile` the Trainer's MPI plugin creates for a
TrainJob whose runtime is among the objects of the render, as it writes it: only its data,
which is what the API server counts against a ConfigMap's 1 MiB.

Kubeflow Trainer v2.3.0, pkg/runtime/framework/plugins/mpi/mpi.go buildHostFileConfigMap: for
each replicated job that is a node (`node`, and `launcher` with runLauncherAsNode), in the
runtime's order, a line `<endpoint> slots=<numProcPerNode>\\n` per pod when mpiImplementation is
OpenMPI (its default; another value gives an empty hostfile); plugins/jobset/jobset.go
IdentifyPodNetwork: the endpoints of a replicated job are `<trainjob>-<job>-<J>-<P>.<subdomain>`
for each of its Jobs J and their pods P, the subdomain the runtime's network.subdomain, else the
TrainJob's name. The pods per Job and the Jobs are mpigen.render.trainjob.capacity's.
"""

from __future__ import annotations

from mpigen.kube.values import get, mapping
from mpigen.render.kinds import Find
from mpigen.render.trainjob.capacity import job_pods, procs_per_node, runtime_of
from mpigen.render.trainjob.names import HOSTFILE_SUFFIX, LAUNCHER_JOB, NODE_JOB

OPEN_MPI = "OpenMPI"


def trainer_hostfile(trainjob: dict, find: Find) -> list[dict]:
    """The ConfigMap the MPI plugin creates for trainjob; none when its runtime is not among the
    objects (the cluster's: its size is not known here) or has no MPI policy."""
    name, runtime = get(trainjob, "metadata", "name"), runtime_of(trainjob, find)
    policy = get(runtime or {}, "spec", "mlPolicy")
    mpi = get(policy or {}, "mpi")
    if not isinstance(name, str) or not isinstance(mpi, dict):
        return []
    trainer = mapping(get(trainjob, "spec", "trainer"))
    lines = []
    if mpi.get("mpiImplementation", OPEN_MPI) == OPEN_MPI:
        subdomain = get(runtime, "spec", "template", "spec", "network", "subdomain")
        subdomain = subdomain if isinstance(subdomain, str) and subdomain else name
        slots = procs_per_node(trainer, mpi, runtime)
        nodes = (NODE_JOB, LAUNCHER_JOB) if mpi.get("runLauncherAsNode") is True else (NODE_JOB,)
        jobs = get(runtime, "spec", "template", "spec", "replicatedJobs")
        for job in jobs if isinstance(jobs, list) else []:
            job = mapping(job)
            if job.get("name") not in nodes:
                continue
            pods, replicas = job_pods(job, trainer, policy)
            lines += [f"{name}-{job['name']}-{j}-{p}.{subdomain} slots={slots}\n"
                      for j in range(replicas) for p in range(pods)]
    return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name + HOSTFILE_SUFFIX},
             "data": {"hostfile": "".join(lines)}}]
