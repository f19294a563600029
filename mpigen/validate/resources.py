"""Resource requests: Kubernetes resource names, the GPU resource (one a device plugin
advertises) and other accelerators, whole numbers for extended resources, hugepages with a memory limit, and a launcher that
requests no cpu or memory beside workers that do.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
from mpigen.kube.accelerators import is_accelerator, is_known_accelerator, nearest_known_accelerator
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
    else:
        _check_gpu_resource_known(f, gpu_resource, out)
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


def _check_gpu_resource_known(f: Fields, gpu_resource: str, out: list[Diagnostic]) -> None:
    """A GPU resource no known device plugin advertises (kube.accelerators): no node has it,
    and the scheduler keeps the workers Pending for ever ("Insufficient nvidia.com/gpus").
    A warning: a cluster may run a device plugin mpigen does not know."""
    if not f.ok(("spec", "gpusPerWorker")) or not f.get(("spec", "gpusPerWorker")) or is_known_accelerator(gpu_resource):
        return
    nearest = nearest_known_accelerator(gpu_resource)
    fix = (f"did you mean {nearest}?" if nearest else
           "use the name your cluster's device plugin advertises (kubectl describe node: Allocatable), such as "
           "nvidia.com/gpu, nvidia.com/mig-<profile>, amd.com/gpu, gpu.intel.com/i915, habana.ai/gaudi or "
           "aws.amazon.com/neuron")
    out.append(warning(f.doc.value_mark(("spec", "gpuResource")),
                       f"spec.gpuResource: {gpu_resource!r} is not a resource any known device plugin advertises; "
                       f"unless your cluster's own plugin does, no node has it and the workers stay Pending; {fix}"))


def check_launcher_resources(f: Fields, out: list[Diagnostic]) -> None:
    """A launcher without the cpu or memory its workers state. A namespace whose ResourceQuota
    covers cpu or memory refuses every pod that does not state them ("failed quota: must
    specify limits.cpu"), unless a LimitRange gives defaults: the workers would start and the
    launcher's pod would never be created. Where the workers state neither, the namespace
    evidently needs neither, and nothing is said. The rule: "If the quota has a value specified
    for requests.cpu or requests.memory, then it requires that every incoming container makes
    an explicit request for those resources" (and limits.* likewise), kubernetes.io/docs/
    concepts/policy/resource-quotas/. podTemplatePatch cannot set resources (validate.pod_patch),
    so the blueprint after its overlays is what the launcher's pod gets."""
    worker, launcher = ("spec", "resources", "worker"), ("spec", "resources", "launcher")
    if not f.ok(worker, launcher):
        return
    missing = [name for name in ("cpu", "memory")
               if name in (f.get(worker) or {}) and name not in (f.get(launcher) or {})]
    if missing:
        stated, quota = " and ".join(missing), " or ".join(missing)
        example = ", ".join({"cpu": 'cpu: "1"', "memory": "memory: 2Gi"}[name] for name in missing)
        out.append(warning(f.doc.key_mark(launcher),
                           f"spec.resources.launcher: the workers state {stated} but the launcher does not; a "
                           f"namespace whose ResourceQuota covers {quota} refuses the launcher's pod (and the job "
                           f"never starts) unless a LimitRange gives defaults; add {{{example}}} to "
                           "spec.resources.launcher"))


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
