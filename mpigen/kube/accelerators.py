"""Accelerators: which extended resources are GPUs or other accelerators."""

from __future__ import annotations

from fnmatch import fnmatchcase

# Accelerator resources of the device plugins users meet (NVIDIA, with MIG slices; AMD;
# Intel Gaudi and GPUs; AWS Neuron; Google TPU), and any other whose name says gpu. Not a
# vendor prefix alone: NVIDIA's SR-IOV and RDMA devices are nvidia.com/ resources too.
ACCELERATORS = ("nvidia.com/gpu*", "nvidia.com/mig-*", "amd.com/gpu*", "habana.ai/*", "gpu.intel.com/*",
                "aws.amazon.com/neuron*", "google.com/tpu*")



def is_accelerator(resource: str) -> bool:
    return "gpu" in resource.lower() or any(fnmatchcase(resource, pattern) for pattern in ACCELERATORS)
