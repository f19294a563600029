"""Scratch datasets (emptyDir, ephemeral): each pod's own empty folder or claim, checked
against what the cluster does with them.

- A sizeLimit or size of 0 is no limit or no claim: the API server takes an emptyDir's
  sizeLimit of 0 (kubernetes v1.31 pkg/apis/core/validation/validation.go validateVolumeSource
  refuses only a negative one), but the kubelet then enforces nothing (pkg/kubelet/eviction
  eviction_manager.go emptyDirLimitEviction evicts only when `size.Sign() == 1`;
  pkg/volume/emptydir/empty_dir.go calculateEmptyDirMemorySize uses a sizeLimit only when
  `> 0`); an ephemeral claim of 0 is refused (ValidatePersistentVolumeClaimSpec,
  ValidatePositiveQuantityValue on resources.requests.storage).
- `medium: Memory` is a tmpfs whose pages count against the memory limit of the container
  that writes them (the pod's memory cgroup), and the kubelet sizes the tmpfs at the
  smaller of sizeLimit and the pod's memory limit (calculateEmptyDirMemorySize): a sizeLimit
  at or above a rank pod's memory limit leaves the program nothing, and the ranks are
  OOM-killed before the volume is full.
- A read-only scratch mount can never hold anything; a download onto scratch fills the
  launcher's own copy only (mpigen.validate.datasets refuses it with hostPath's).
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.datasets import SCRATCH_SOURCES
from mpigen.kube.quantity import parse
from mpigen.load.document import field_path
from mpigen.validate.fields import Fields, run_as_worker


def check_scratch(f: Fields, out: list[Diagnostic]) -> None:
    datasets = f.get(("spec", "datasets"), [])
    if not isinstance(datasets, list):
        return
    in_memory: list[tuple[tuple, str]] = []  # (the sizeLimit's location, the size) of each Memory emptyDir
    for index, dataset in enumerate(datasets):
        here = ("spec", "datasets", index)
        if not f.ok(here) or not isinstance(dataset, dict):
            continue
        source = next((s for s in SCRATCH_SOURCES if isinstance(dataset.get(s), dict)), None)
        if source is None:
            continue
        where = f"spec.datasets[{index}]"
        if dataset.get("readOnly") is True:
            out.append(error(f.doc.value_mark(here + ("readOnly",)),
                             f"{where}.readOnly: an {source} volume starts empty in every pod, so a read-only mount "
                             "of it can never hold anything; remove readOnly (scratch is writable)"))
        size_key = "sizeLimit" if source == "emptyDir" else "size"
        size = dataset[source].get(size_key)
        if size is not None and parse(str(size)) == 0:
            fix = ("the kubelet enforces no limit of 0; remove sizeLimit for no limit, or give the most it may hold"
                   if source == "emptyDir" else "the API server refuses a claim of 0; give the storage each pod needs")
            out.append(error(f.doc.value_mark(here + (source, size_key)), f"{where}.{source}.{size_key}: {fix}"))
        elif size is not None and source == "emptyDir" and dataset[source].get("medium") == "Memory":
            _memory(f, out, here + (source, size_key), f"{where}.emptyDir.sizeLimit", str(size))
            in_memory.append((here + (source, size_key), str(size)))
    _memory_together(f, out, in_memory)


def _memory_limits(f: Fields) -> list[tuple[str, str, bool]]:
    """(role, its memory limit, whether it runs ranks) of each role that states one: the
    workers, then the launcher (a rank host with spec.launcher.runAsWorker); none where those
    fields had an error."""
    if not f.ok(("spec", "resources"), ("spec", "launcher")):
        return []
    ranks = ("worker", "launcher") if run_as_worker(f) else ("worker",)
    limits = ((role, (f.get(("spec", "resources", role), {}) or {}).get("memory")) for role in ("worker", "launcher"))
    return [(role, str(memory), role in ranks) for role, memory in limits if memory is not None]


def _memory(f: Fields, out: list[Diagnostic], loc, where: str, size: str) -> None:
    """A memory-backed emptyDir against the memory limit of each role that mounts it (both)."""
    for role, memory, rank in _memory_limits(f):
        if parse(size) < parse(memory):
            continue
        if rank:
            out.append(error(f.doc.value_mark(loc),
                             f"{where}: a Memory emptyDir of {size} counts against the {role} memory limit of "
                             f"{memory} (the kubelet caps the tmpfs at the pod's memory limit), which leaves the "
                             f"ranks nothing before the volume is full; raise spec.resources.{role}.memory or "
                             "lower sizeLimit"))
            return
        out.append(warning(f.doc.value_mark(loc),
                           f"{where}: a Memory emptyDir of {size} is mounted on the launcher too, whose memory "
                           f"limit is {memory}: the kubelet caps its tmpfs at that limit, and anything the launcher "
                           "writes there counts against it; raise spec.resources.launcher.memory if the launcher "
                           "writes to it"))


def _memory_together(f: Fields, out: list[Diagnostic], in_memory: list[tuple[tuple, str]]) -> None:
    """The Memory emptyDirs and an explicit spec.sharedMemory of a rank pod share its memory
    limit: each below it, all together at or above it leave the ranks nothing (an error at the
    last of them)."""
    shm = ("spec", "sharedMemory")
    shared = str(f.get(shm)) if f.ok(shm) and f.get(shm) is not None else "0"
    if not in_memory or (len(in_memory) == 1 and parse(shared) == 0):
        return
    sizes = [parse(size) for _, size in in_memory] + [parse(shared)]
    for role, memory, rank in _memory_limits(f):
        if not rank or max(sizes) >= parse(memory) or sum(sizes) < parse(memory):
            continue
        loc, _ = in_memory[-1]
        parts = " + ".join(size for _, size in in_memory) + (f" + sharedMemory {shared}" if parse(shared) else "")
        out.append(error(f.doc.value_mark(loc),
                         f"{field_path(loc)}: the Memory emptyDirs{' and /dev/shm' if parse(shared) else ''} of a "
                         f"{role} pod hold {parts} together, at or above its memory limit of {memory}: tmpfs pages "
                         f"count against it, which leaves the ranks nothing; raise spec.resources.{role}.memory or "
                         "lower the sizeLimits"))
        return
