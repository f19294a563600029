"""Accelerators: which extended resources are GPUs or other accelerators, and the names the
device plugins advertise them under."""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import lru_cache

from mpigen.errors import close_matches

# The resources the accelerator device plugins advertise, each with one name a pod may request
# (what a misspelt name is compared with), from the plugin's source or documentation:
# - NVIDIA/k8s-device-plugin (README.md, "Configuration Option Details" and "Shared Access to
#   GPUs"): nvidia.com/gpu; MIG slices under the mixed strategy as nvidia.com/mig-<profile>
#   (mig-1g.5gb, mig-3g.20gb, ...); time-sliced or MPS-shared GPUs with renameByDefault as
#   nvidia.com/gpu.shared.
# - ROCm/k8s-device-plugin (README.md): amd.com/gpu.
# - intel/intel-device-plugins-for-kubernetes (cmd/gpu_plugin/README.md): gpu.intel.com/i915,
#   and gpu.intel.com/xe for the xe kernel driver.
# - Intel Gaudi device plugin (docs.habana.ai, "Intel Gaudi Device Plugin for Kubernetes"):
#   habana.ai/gaudi.
# - AWS Neuron device plugin (awsdocs-neuron, "k8s neuron device plugin"): aws.amazon.com/neuron
#   (whole devices) and aws.amazon.com/neuroncore; aws.amazon.com/neurondevice was removed in
#   Neuron 2.20 ("'neurondevice' resource name ... no longer supported").
# - Google Kubernetes Engine TPUs (cloud.google.com/kubernetes-engine/docs/concepts/tpus):
#   google.com/tpu.
KNOWN_ACCELERATORS: tuple[tuple[str, str], ...] = (
    ("nvidia.com/gpu", "nvidia.com/gpu"),
    ("nvidia.com/gpu.shared", "nvidia.com/gpu.shared"),
    ("nvidia.com/mig-?*", "nvidia.com/mig-1g.5gb"),
    ("amd.com/gpu", "amd.com/gpu"),
    ("gpu.intel.com/i915", "gpu.intel.com/i915"),
    ("gpu.intel.com/xe", "gpu.intel.com/xe"),
    ("habana.ai/gaudi", "habana.ai/gaudi"),
    ("aws.amazon.com/neuron", "aws.amazon.com/neuron"),
    ("aws.amazon.com/neuroncore", "aws.amazon.com/neuroncore"),
    ("google.com/tpu", "google.com/tpu"),
)
# Accelerators by family, for what reads a pod's requests (capacity, the trainjob importer):
# the families above and any other resource whose name says gpu. Not a vendor prefix alone:
# NVIDIA's SR-IOV and RDMA devices are nvidia.com/ resources too.
ACCELERATORS = ("nvidia.com/gpu*", "nvidia.com/mig-*", "amd.com/gpu*", "habana.ai/*", "gpu.intel.com/*",
                "aws.amazon.com/neuron*", "google.com/tpu*")


@lru_cache(maxsize=4096)  # asked of every resource of every job, and the names repeat
def is_accelerator(resource: str) -> bool:
    return "gpu" in resource.lower() or any(fnmatchcase(resource, pattern) for pattern in ACCELERATORS)


@lru_cache(maxsize=4096)
def is_known_accelerator(resource: str) -> bool:
    """Whether a device plugin of KNOWN_ACCELERATORS advertises this resource."""
    return any(fnmatchcase(resource, pattern) for pattern, _ in KNOWN_ACCELERATORS)


def nearest_known_accelerator(resource: str) -> str | None:
    """The known accelerator name most like this one (a typo's intended name), if any is close."""
    names = [example for _, example in KNOWN_ACCELERATORS]
    if resource.startswith("nvidia.com/mig"):  # a MIG profile's name is the user's to keep
        return f"nvidia.com/mig-{resource.removeprefix('nvidia.com/mig').lstrip('-_.') or '1g.5gb'}"
    close = close_matches(resource, names)
    return close[0] if close else None
