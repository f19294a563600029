"""Resource requests: Kubernetes resource names, the GPU resource and other accelerators,
whole numbers for extended resources, hugepages with a memory limit.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.kube.accelerators import is_accelerator
from mpigen.validate.fields import Fields

# Resource names Kubernetes knows without a domain (core/v1 ResourceName); every other
# resource is an extended resource, which must carry a domain prefix and be a whole number.
STANDARD_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _resource_name_problem(name: str) -> str | None:
    if name in STANDARD_RESOURCES or name.startswith("hugepages-"):
        return None
    if "/" not in name:
        return (f"{name!r} is not a Kubernetes resource: use cpu, memory, ephemeral-storage, hugepages-<size> "
                "or a domain-prefixed extended resource such as nvidia.com/gpu")
    if name.split("/", 1)[0].endswith("kubernetes.io"):
        return f"{name!r}: the kubernetes.io domain is reserved for Kubernetes' own resources"
    return None


def check_resources(f: Fields, out: list[Diagnostic]) -> None:
    gpu = ("spec", "gpuResource")
    if not f.ok(gpu):
        return
    gpu_resource = f.get(gpu, "nvidia.com/gpu")
    if "/" not in gpu_resource or _resource_name_problem(gpu_resource):
        out.append(error(f.doc.value_mark(gpu),
                         f"spec.gpuResource: {gpu_resource!r} is not an extended resource; accelerators are "
                         "requested by a domain-prefixed name such as nvidia.com/gpu or amd.com/gpu"))
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        for name, quantity in f.get(loc, {}).items():
            where = f"spec.resources.{role}"
            problem = _resource_name_problem(name)
            if name == gpu_resource:
                hint = ("set gpusPerWorker instead" if role == "worker"
                        else "the launcher never requests GPUs (it only runs mpirun)")
                out.append(error(f.doc.key_mark(loc + (name,)), f"{where}: {name!r} is the GPU resource; {hint}"))
            elif problem:
                out.append(error(f.doc.key_mark(loc + (name,)), f"{where}: {problem}"))
            elif "/" in name and not str(quantity).isdigit():
                out.append(error(f.doc.value_mark(loc + (name,)),
                                 f"{where}.{name}: extended resources are whole numbers, got {quantity!r}"))


def check_accelerators(f: Fields, out: list[Diagnostic]) -> None:
    gpu = ("spec", "gpuResource")
    if not f.ok(gpu):
        return
    gpu_resource = f.get(gpu, "nvidia.com/gpu")
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        for name in f.get(loc, {}):
            if name == gpu_resource or not is_accelerator(name):
                continue  # the GPU resource itself is reported by validate.check_resources
            if role == "worker":
                message = (f"spec.resources.worker: {name!r} is an accelerator, and a container can use one "
                           f"accelerator type (the device plugins give no mix, MIG slices included); request it "
                           f"with gpuResource: {name} and gpusPerWorker instead")
            else:
                message = (f"spec.resources.launcher: {name!r} is an accelerator; the launcher only runs mpirun, "
                           "so it gets none; set spec.launcher.runAsWorker: true to run ranks on it")
            out.append(error(f.doc.key_mark(loc + (name,)), message))
    rdma = ("spec", "network", "rdma", "resource")
    if f.ok(rdma) and f.get(rdma) is not None:
        name = f.get(rdma)
        if is_accelerator(name) or name == gpu_resource:
            out.append(error(f.doc.value_mark(rdma), f"spec.network.rdma.resource: {name!r} is an accelerator, "
                                                     "not an RDMA device; request it with gpuResource"))
        elif "/" not in name:
            out.append(error(f.doc.value_mark(rdma), f"spec.network.rdma.resource: {name!r} is not an extended "
                                                     "resource; RDMA devices have a domain-prefixed name such as "
                                                     "rdma/hca or vpc.amazonaws.com/efa"))
        elif f.ok(("spec", "resources", "worker")) and name in f.get(("spec", "resources", "worker"), {}):
            out.append(error(f.doc.key_mark(("spec", "resources", "worker", name)),
                             f"spec.resources.worker: {name!r} is also set by spec.network.rdma; set it in one "
                             "place (spec.network.rdma)"))


def check_hugepages(f: Fields, out: list[Diagnostic]) -> None:
    for role in ("worker", "launcher"):
        loc = ("spec", "resources", role)
        if not f.ok(loc):
            continue
        resources = f.get(loc, {})
        for name in resources:
            if name.startswith("hugepages-") and "cpu" not in resources and "memory" not in resources:
                out.append(error(f.doc.key_mark(loc + (name,)),
                                 f"spec.resources.{role}: {name} needs a cpu or memory limit as well (the API server "
                                 "refuses hugepages alone); add memory"))
