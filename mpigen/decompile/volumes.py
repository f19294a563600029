"""`mpigen import`, the volumes: the launcher's mounted volumes become datasets, a sized
memory emptyDir at /dev/shm on the workers becomes sharedMemory.

A dataset renders one volume and one mount, the same on the launcher and every worker, in
exactly the form compile.dataset_volume and compile.dataset_mount write; a volume is
carried when it is that form, and each difference from it is reported at its line.
"""

from __future__ import annotations

from mpigen.compile.blueprint import SHM_MOUNT, SHM_VOLUME
from mpigen.compile.environment import RANK_ENV_VOLUME
from mpigen.decompile import scratch_volumes

MOUNT_KEYS = ("name", "mountPath", "readOnly")
DEFAULT_MODE = 420  # what the API server sets on a configMap or secret volume without one (0644)
# The volumes each operator adds to each role's pods (2.5, 2.6, 3.6, 3.7, 4.6, 4.7): a
# template volume of that name makes a pod with two, which the API server refuses.
_KUBECTL = {"Launcher": ("mpi-job-config", "mpi-job-kubectl"), "Worker": ("mpi-job-config",)}
OPERATOR_VOLUMES = {"kubeflow.org/v1alpha2": _KUBECTL, "kubeflow.org/v1": _KUBECTL,
                    "kubeflow.org/v2beta1": {"Launcher": ("ssh-auth", "mpi-job-config"), "Worker": ("ssh-auth",)}}


def datasets(r, launcher: dict, worker: dict) -> list[dict]:
    out = []
    for index, volume in enumerate(launcher["volumes"]):
        vloc = launcher["vloc"] + (index,)
        name = _name(r, volume, vloc, "Launcher")
        if name is None:
            continue
        mounts = _mounts(launcher, name)
        if not mounts:
            r.lost(vloc, f"the launcher's volume {name!r}, which its MPI container does not mount (a dataset is a "
                         "volume mounted in the MPI containers)")
            continue
        if "emptyDir" in volume and any(m.get("mountPath") == SHM_MOUNT for _, m in mounts):
            r.lost(vloc, f"the launcher's /dev/shm volume {name!r} (spec.sharedMemory sizes /dev/shm in rank pods)")
            continue
        found = as_dataset(r, launcher, volume, vloc, name, mounts)
        if found is None:
            continue
        dataset, mount = found
        _same_on_workers(r, worker, volume, mount, name)
        r.came_from(("datasets", len(out)), vloc)
        out.append(dataset)
    return out


def as_dataset(r, part: dict, volume: dict, vloc, name: str, mounts: list) -> tuple[dict, dict] | None:
    """The dataset of a volume a role's MPI container mounts, and its (first) mount; None
    when the volume is no dataset (reported)."""
    source = _source(r, volume, vloc)
    if source is None:
        return None
    (mindex, mount), *others = mounts
    for extra, _ in others:
        r.lost(part["cloc"] + ("volumeMounts", extra), f"a second mount of {name!r} (a dataset is mounted once)")
    mloc = part["cloc"] + ("volumeMounts", mindex)
    dataset = {"name": name, "mountPath": mount.get("mountPath"), **source.pop("dataset")}
    _mount_keys(r, mount, mloc)
    read_only = mount.get("readOnly", False) is True
    if source.get("read_only_source") and not read_only:
        read_only = True  # the volume source makes the mount read-only: keep it so
    if source.get("scratch"):
        if read_only:
            r.differs(mloc + ("readOnly",), f"a read-only mount of the scratch volume {name!r}, which starts "
                                            "empty; a blueprint's scratch dataset is writable")
    elif "configMap" in dataset or "secret" in dataset:
        if not read_only:
            r.differs(mloc, f"the mount of {name!r} is not marked readOnly; a blueprint's "
                            f"{'configMap' if 'configMap' in dataset else 'secret'} dataset renders readOnly: "
                            "true (such volumes are read-only anyway)")
    elif not read_only:
        dataset["readOnly"] = False
    if source.get("csi_read_only") is not None and source["csi_read_only"] != read_only:
        r.differs(vloc + ("csi", "readOnly"), f"the csi volume {name!r} has readOnly "
                                              f"{str(source['csi_read_only']).lower()} and its mount "
                                              f"{str(read_only).lower()}; a blueprint's csi dataset writes the "
                                              "mount's on both")
    return dataset, mount


def _name(r, volume, vloc, role: str) -> str | None:
    if not isinstance(volume, dict) or not isinstance(volume.get("name"), str) or not volume["name"]:
        r.refuse(vloc, "a volume needs a name")
        return None
    name = volume["name"]
    if name in OPERATOR_VOLUMES[r.api][role]:
        r.refuse(vloc + ("name",), f"{name!r} is the name of a volume the operator adds to the pod, which would "
                                   "then have two (the API server refuses it); rename it")
        return None
    return name


def _mounts(part: dict, name: str) -> list[tuple[int, dict]]:
    return [(i, m) for i, m in enumerate(part["mounts"]) if isinstance(m, dict) and m.get("name") == name]


def _mount_keys(r, mount: dict, mloc) -> None:
    for key in mount:
        if key not in MOUNT_KEYS:
            r.lost(mloc + (key,), f"the mount's {key} (a dataset mounts the whole volume at mountPath)")
    _boolean(r, mount, mloc)


def _boolean(r, body: dict, loc) -> None:
    if not isinstance(body.get("readOnly", False), bool):
        r.refuse(loc + ("readOnly",), "readOnly is true or false")


def _source(r, volume: dict, vloc) -> dict | None:
    """{"dataset": the dataset's source fields, ...notes}, or None when the volume is no
    dataset (reported)."""
    kinds = [k for k in volume if k != "name"]
    kind = kinds[0] if len(kinds) == 1 else None
    body = volume.get(kind) if kind else None
    if not isinstance(body, dict):
        r.lost(vloc, f"the volume {volume['name']!r} (only persistentVolumeClaim, nfs, hostPath, csi, configMap, "
                     "secret, emptyDir and ephemeral volumes become datasets)")
        return None
    here = vloc + (kind,)
    reader = _SOURCES.get(kind)
    if reader is None:
        r.lost(vloc, f"the {kind} volume {volume['name']!r} (only persistentVolumeClaim, nfs, hostPath, csi, "
                     "configMap, secret, emptyDir and ephemeral volumes become datasets)")
        return None
    return reader(r, body, here)


def _extra_keys(r, body: dict, here, allowed: tuple, what: str) -> None:
    for key in body:
        if key not in allowed:
            r.lost(here + (key,), f"the {what} volume's {key}")


def _read_only_flag(r, body: dict, here, what: str) -> bool:
    _boolean(r, body, here)
    if body.get("readOnly") is True:
        r.differs(here + ("readOnly",), f"{what}.readOnly: true; a blueprint cannot express it, so the imported "
                                        "dataset is read-only through its mount (readOnly: true) only")
        return True
    return False


def _pvc(r, body, here):
    _extra_keys(r, body, here, ("claimName", "readOnly"), "persistentVolumeClaim")
    read_only = _read_only_flag(r, body, here, "persistentVolumeClaim")
    return {"dataset": {"pvc": body.get("claimName")}, "read_only_source": read_only}


def _nfs(r, body, here):
    _extra_keys(r, body, here, ("server", "path", "readOnly"), "nfs")
    read_only = _read_only_flag(r, body, here, "nfs")
    return {"dataset": {"nfs": {"server": body.get("server"), "path": body.get("path")}}, "read_only_source": read_only}


def _host_path(r, body, here):
    _extra_keys(r, body, here, ("path", "type"), "hostPath")
    kind = body.get("type", "")
    if kind not in ("", "Directory", "DirectoryOrCreate"):
        r.lost(here[:-1], f"the hostPath volume of type {kind} (a hostPath dataset is a Directory)")
        return None
    if kind != "Directory":
        r.differs(here + ("type",) if "type" in body else here,
                  f"a hostPath of type {kind or 'unset'}; a blueprint's hostPath dataset has type: Directory, so a "
                  "missing folder stops the pod")
    return {"dataset": {"hostPath": body.get("path")}}


def _csi(r, body, here):
    _extra_keys(r, body, here, ("driver", "readOnly", "volumeAttributes", "nodePublishSecretRef"), "csi")
    _boolean(r, body, here)
    csi = {"driver": body.get("driver")}
    if body.get("volumeAttributes"):
        csi["volumeAttributes"] = body["volumeAttributes"]
    secret = body.get("nodePublishSecretRef")
    if secret is not None:
        if isinstance(secret, dict) and set(secret) == {"name"}:
            csi["nodePublishSecret"] = secret["name"]
        else:
            r.lost(here + ("nodePublishSecretRef",), "a nodePublishSecretRef other than {name: ...}")
    return {"dataset": {"csi": csi}, "csi_read_only": body.get("readOnly", False) is True}


def _by_name(key: str, what: str):
    def read(r, body, here):
        _extra_keys(r, {k: v for k, v in body.items() if not (k == "defaultMode" and v == DEFAULT_MODE)},
                    here, (key,), what)
        return {"dataset": {what: body.get(key)}}
    return read


_SOURCES = {"persistentVolumeClaim": _pvc, "nfs": _nfs, "hostPath": _host_path, "csi": _csi,
            "configMap": _by_name("name", "configMap"), "secret": _by_name("secretName", "secret"),
            "emptyDir": scratch_volumes.empty_dir, "ephemeral": scratch_volumes.ephemeral}


def _same_on_workers(r, worker: dict, volume: dict, mount: dict, name: str) -> None:
    index = next((i for i, v in enumerate(worker["volumes"]) if isinstance(v, dict) and v.get("name") == name), None)
    mounts = _mounts(worker, name)
    if index is None or not mounts:
        r.differs(worker["vloc"] if index is None else worker["vloc"] + (index,),
                  f"the workers do not mount the launcher's volume {name!r}; a blueprint's dataset is mounted on "
                  "the launcher and every worker, so the imported one is")
    elif worker["volumes"][index] != volume or mounts[0][1] != mount or len(mounts) > 1:
        r.differs(worker["vloc"] + (index,), f"the workers' volume {name!r} is not the launcher's, or not mounted "
                                             "as the launcher mounts it; the imported dataset is the launcher's, on "
                                             "both")


def _names(volumes: list) -> set[str]:
    return {v["name"] for v in volumes if isinstance(v, dict) and isinstance(v.get("name"), str)}


def dangling_mounts(r, part: dict) -> None:
    """A mount of a volume the pod does not have: the API server refuses the pod."""
    names = _names(part["volumes"])
    for index, mount in enumerate(part["mounts"]):
        if not isinstance(mount, dict) or not isinstance(mount.get("name"), str) or mount["name"] not in names:
            r.refuse(part["cloc"] + ("volumeMounts", index),
                     "this mount names no volume of the pod (the API server refuses the pod); add the volume")


# What a worker-only volume imported as a dataset means for the launcher (docs/migrate.md).
WORKER_ONLY_VOLUME = (
    "a ReadWriteOnce claim attaches to one node: every pod that mounts it, now the launcher's too, must run on "
    "that node, or it waits in ContainerCreating with FailedAttachVolume \"Multi-Attach error\" (kubernetes "
    "pkg/controller/volume/attachdetach/reconciler/reconciler.go, reportMultiAttachError); use a ReadWriteMany "
    "or ReadOnlyMany claim, or nfs, csi or hostPath")


def worker_only_volumes(r, launcher: dict, worker: dict, rank_env: bool, gpus: bool,
                        datasets_out: list) -> str | None:
    """What the workers mount and the launcher does not: /dev/shm as a memory-backed
    emptyDir is spec.sharedMemory (returned); mpigen's own rank-env.sh volume is the
    PyTorch preset's; a volume of a dataset's source mounted in the MPI container becomes a
    dataset (added to datasets_out), which the launcher mounts too: reported at its line, with
    what that means for a ReadWriteOnce claim; the rest cannot be expressed."""
    shared = _names(launcher["volumes"])
    shm = None
    for index, volume in enumerate(worker["volumes"]):
        vloc = worker["vloc"] + (index,)
        name = _name(r, volume, vloc, "Worker")
        if name is None or name in shared or (name == RANK_ENV_VOLUME and rank_env):
            continue
        mounts = _mounts(worker, name)
        size = _shared_memory(volume, mounts)
        if size is not None and shm is None:
            shm = size
            if name != SHM_VOLUME:
                r.differs(vloc + ("name",), f"the /dev/shm volume is named {name!r}; a blueprint's sharedMemory "
                                            f"volume is {SHM_VOLUME!r}")
            continue
        kind = next((k for k in volume if k != "name"), None)
        if mounts and kind in _SOURCES and all(m.get("mountPath") != SHM_MOUNT for _, m in mounts):
            found = as_dataset(r, worker, volume, vloc, name, mounts)
            if found is not None:
                why = f" ({WORKER_ONLY_VOLUME})" if "pvc" in found[0] else ""
                r.differs(vloc, f"the volume {name!r} is mounted on the workers only; imported as a dataset, which "
                                f"a blueprint mounts on the launcher too, at the same path{why}")
                r.came_from(("datasets", len(datasets_out)), vloc)
                datasets_out.append(found[0])
            continue
        r.lost(vloc, f"the workers' volume {name!r} (only volumes of a dataset's source mounted in the MPI "
                     "container become datasets; /dev/shm as a sized Memory emptyDir becomes sharedMemory)")
    if shm is None and gpus:
        return "0"  # the MPIJob has none; mpigen's default would add one
    return shm


def _shared_memory(volume: dict, mounts: list) -> str | None:
    empty_dir = volume.get("emptyDir")
    if len(volume) != 2 or not isinstance(empty_dir, dict) or len(mounts) != 1:
        return None
    mount = mounts[0][1]
    if set(mount) != {"name", "mountPath"} or mount["mountPath"] != SHM_MOUNT:
        return None
    if empty_dir.get("medium") != "Memory" or set(empty_dir) != {"medium", "sizeLimit"}:
        return None
    return str(empty_dir["sizeLimit"])
