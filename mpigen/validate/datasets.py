"""Datasets: unique volume names and mount paths that no later stage uses
(mpigen.validate.reserved), and storage that every pod of the job can mount.
"""

from __future__ import annotations

import posixpath

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import Fields


def check_datasets(f: Fields, out: list[Diagnostic]) -> None:
    datasets = f.get(("spec", "datasets"), [])
    if not isinstance(datasets, list):
        return
    names: dict[str, int] = {}
    paths: dict[str, int] = {}
    for index in range(len(datasets)):
        here = ("spec", "datasets", index)
        name_loc, path_loc = here + ("name",), here + ("mountPath",)
        name = f.get(name_loc) if f.ok(name_loc) else None
        if isinstance(name, str):
            if name in f.reserved.volumes:
                out.append(error(f.doc.value_mark(name_loc),
                                 f"spec.datasets[{index}].name: {name!r} is the name of a volume the MPI "
                                 "Operator adds; choose another name"))
            elif name in names:
                out.append(error(f.doc.value_mark(name_loc),
                                 f"spec.datasets[{index}].name: {name!r} is already used by "
                                 f"spec.datasets[{names[name]}]; volume names must be unique"))
            names.setdefault(name, index)
        _host_path_backsteps(f, here + ("hostPath",), out)
        raw = f.get(path_loc) if f.ok(path_loc) else None
        if not isinstance(raw, str):
            continue
        path = posixpath.normpath(raw)
        mark = f.doc.value_mark(path_loc)
        where = f"spec.datasets[{index}].mountPath"
        if ".." in raw.split("/"):
            out.append(error(mark, f"{where}: {raw!r} contains '..'; write the path without it"))
        elif path == "/":
            out.append(error(mark, f"{where}: cannot mount over the container's root folder"))
        elif any(path == r or path.startswith(r + "/") or r.startswith(path + "/") for r in f.reserved.mounts):
            out.append(error(mark, f"{where}: {raw!r} clashes with the operator's mounts "
                                   f"({', '.join(f.reserved.mounts)}); choose another path"))
        elif path in paths:
            out.append(error(mark, f"{where}: {raw!r} is already used by spec.datasets[{paths[path]}]; "
                                   "mount paths must be unique"))
        paths.setdefault(path, index)


def check_storage(f: Fields, out: list[Diagnostic]) -> None:
    datasets = f.get(("spec", "datasets"), [])
    if not isinstance(datasets, list) or not f.ok(("spec", "workers")):
        return
    workers = f.get(("spec", "workers"), 1)
    for index, dataset in enumerate(datasets):
        here = ("spec", "datasets", index)
        if not f.ok(here) or not isinstance(dataset, dict):
            continue
        where = f"spec.datasets[{index}]"
        read_only = dataset.get("readOnly", True)
        mode = dataset.get("accessMode")
        if mode in ("ReadWriteOnce", "ReadWriteOncePod"):
            out.append(error(f.doc.value_mark(here + ("accessMode",)),
                             f"{where}.accessMode: a {mode} claim mounts on one {'pod' if mode.endswith('Pod') else 'node'}"
                             f", but the launcher and {workers} worker{'s' if workers > 1 else ''} mount it: the "
                             "pods on other nodes fail with FailedMount; use a ReadWriteMany (or, read-only, "
                             "ReadOnlyMany) claim"))
        elif mode == "ReadOnlyMany" and (not read_only or dataset.get("download")):
            key = "download" if dataset.get("download") else "readOnly"
            out.append(error(f.doc.key_mark(here + (key,)),
                             f"{where}.{key}: the claim is ReadOnlyMany, so nothing can write to it; use a "
                             "ReadWriteMany claim"))
        for source in ("configMap", "secret"):
            if source in dataset and not read_only:
                out.append(error(f.doc.value_mark(here + ("readOnly",)),
                                 f"{where}.readOnly: a {source} volume is always read-only; remove readOnly: false"))
        if dataset.get("download") is not None:
            source = next((s for s in ("hostPath", "configMap", "secret", "emptyDir", "ephemeral") if s in dataset),
                          None)
            if source:
                out.append(error(f.doc.key_mark(here + ("download",)),
                                 f"{where}.download: the download runs once, on the launcher, and "
                                 f"{'an' if source[0] in 'aeiou' else 'a'} {source} volume "
                                 "is not shared with the workers; download onto a pvc, nfs or csi dataset"))
            name = dataset.get("name")
            if isinstance(name, str) and len("download-" + name) > 63:
                out.append(error(f.doc.value_mark(here + ("name",)),
                                 f"{where}.name: the download step is the init container download-{name}, longer "
                                 f"than the 63 characters of a container name; use at most 54 characters"))


def _host_path_backsteps(f: Fields, loc: tuple, out: list[Diagnostic]) -> None:
    """A hostPath with a '..' element, which the API server refuses (Kubernetes v1.30
    pkg/apis/core/validation/validation.go validateHostPathVolumeSource -> validatePathNoBacksteps:
    "must not contain '..'"); the pod template would never be created."""
    raw = f.get(loc) if f.ok(loc) else None
    if isinstance(raw, str) and ".." in raw.split("/"):
        out.append(error(f.doc.value_mark(loc),
                         f"spec.datasets[{loc[2]}].hostPath: {raw!r} contains '..', which the API server refuses in a "
                         "hostPath (\"must not contain '..'\"); write the folder's path without it"))
