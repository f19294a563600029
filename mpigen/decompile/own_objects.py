"""`mpigen import`, what mpigen's own render of a blueprint writes beside the operator's
fields, read back into the blueprint fields that wrote it, so that mpigen's output comes
back whole: Kueue's topology request on the rank pods' templates (scheduling.topology),
MultiKueue's runPolicy.managedBy (scheduling.multiKueue), privileged rank containers
(security.privileged), the launcher as a worker (launcher.runAsWorker: an MPIJob mpigen
labelled as its own, whose launcher template it wrote as a rank host's), and the
ServiceAccount <job>-identity that both roles run as, whose annotations are
serviceAccount.annotations (given beside the job: the file mpigen rendered holds it).

What a hand-written MPIJob says in the same places is read the same way where rendering it
gives it back, and reported at its line where it does not.
"""

from __future__ import annotations

from mpigen.compile.blueprint import SHM_VOLUME
from mpigen.compile.environment import RANK_ENV_VOLUME
from mpigen.compile.identity import IDENTITY_SUFFIX
from mpigen.decompile.reader import Reader
from mpigen.kube.labels import EXCLUSIVE_LABEL, KUEUE_TOPOLOGY_ANNOTATIONS, MANAGED_BY, MULTIKUEUE
from mpigen.kube.names import is_dns1123_subdomain
from mpigen.load.document import Document

MANAGER = "mpigen"  # the value of app.kubernetes.io/managed-by on every object mpigen writes
POD_LOC = ("spec", "mpiReplicaSpecs")
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def written_by_mpigen(data: object) -> bool:
    """Whether a document carries the label every object mpigen renders has."""
    labels = data.get("metadata", {}).get("labels") if isinstance(data, dict) else None
    return isinstance(labels, dict) and labels.get(MANAGED_BY) == MANAGER


def identity_of(r: Reader, accounts: tuple[Document, ...]) -> dict | None:
    """The annotations of the ServiceAccount <job>-identity mpigen wrote, when it is among
    the documents given and both roles run as it (r.identity is then its name)."""
    name, namespace = r.get(("metadata", "name")), r.get(("metadata", "namespace"))
    if not isinstance(name, str):
        return None
    wanted = name + IDENTITY_SUFFIX
    runs_as = [r.get(POD_LOC + (role, "template", "spec", "serviceAccountName")) for role in ("Launcher", "Worker")]
    if runs_as != [wanted, wanted]:
        return None
    for account in accounts:
        data = account.data
        annotations = data.get("metadata", {}).get("annotations") if isinstance(data, dict) else None
        if data.get("metadata", {}).get("name") == wanted and data["metadata"].get("namespace") == namespace \
                and written_by_mpigen(data) and isinstance(annotations, dict) and annotations \
                and all(isinstance(v, str) for v in annotations.values()):
            r.identity = wanted
            return dict(annotations)
    return None


def service_account(r: Reader, worker: dict, annotations: dict | None, out: dict) -> None:
    """serviceAccount.annotations, for the identity both roles run as (the launcher's
    is left out of its patch by the reading of its pod); else serviceAccount.name, the
    account the workers run as (the launcher keeps its own, as a blueprint's does)."""
    name = worker["patch"]["pod"].get("serviceAccountName")
    if annotations is None and is_dns1123_subdomain(name):
        del worker["patch"]["pod"]["serviceAccountName"]
        out["serviceAccount"] = {"name": name}
        r.came_from(("serviceAccount", "name"), worker["loc"] + ("spec", "serviceAccountName"))
        return
    if annotations is None or name != r.identity:
        return
    del worker["patch"]["pod"]["serviceAccountName"]
    out["serviceAccount"] = {"annotations": annotations}
    r.came_from(("serviceAccount",), worker["loc"] + ("spec", "serviceAccountName"))


def topology(r: Reader, launcher: dict, worker: dict, out: dict) -> None:
    """scheduling.topology from the annotation on the rank pods' templates (the workers', and
    the launcher's when it is a worker), under a Kueue queue (which a topology request needs)."""
    if "scheduling" not in out:
        return
    as_worker = launcher_as_worker(r)
    for kind, key in KUEUE_TOPOLOGY_ANNOTATIONS.items():
        level = worker["annotations"].get(key)
        if level is None or (launcher["annotations"].get(key) == level) != as_worker:
            continue  # not the rendered form: read as any template annotation, and reported
        out["scheduling"]["topology"] = {kind: level}
        r.came_from(("scheduling", "topology"), worker["loc"] + ("metadata", "annotations", key))
        for part in (worker, launcher) if as_worker else (worker,):
            del part["annotations"][key]
        return


def multi_kueue(r: Reader, out: dict) -> bool:
    """scheduling.multiKueue from runPolicy.managedBy, under a Kueue queue (which MultiKueue needs)."""
    if r.get(("spec", "runPolicy", "managedBy")) != MULTIKUEUE or "scheduling" not in out:
        return False
    out["scheduling"]["multiKueue"] = True
    r.came_from(("scheduling", "multiKueue"), ("spec", "runPolicy", "managedBy"))
    return True


def launcher_as_worker(r: Reader) -> bool:
    """Whether runLauncherAsWorker is the blueprint's launcher.runAsWorker: in a view of pods
    mpigen wrote, or in an MPIJob that mpigen labelled as its own (r.launcher_as_worker)."""
    return r.get(("spec", "runLauncherAsWorker")) is True and r.launcher_as_worker


def privileged(r: Reader, launcher: dict, worker: dict, out: dict) -> None:
    """security.privileged: the rank containers' privileged (the workers', and the
    launcher's when it is a worker); a privileged container otherwise is reported."""
    ranks = (worker, launcher) if launcher_as_worker(r) else (worker,)
    if all(part["privileged"] for part in ranks):
        out.setdefault("security", {})["privileged"] = True
        r.came_from(("security", "privileged"), worker["cloc"] + ("securityContext", "privileged"))
        _capabilities(r, ranks, out)
    kept = out.get("security", {}).get("privileged", False)
    for part in (launcher, worker):
        if part["privileged"] and not (kept and part in ranks):
            r.lost(part["cloc"] + ("securityContext", "privileged"),
                   f"the {part['role'].lower()} container's privileged: true (a blueprint's security.privileged "
                   "makes the rank containers privileged: the workers, and the launcher with launcher.runAsWorker)")


def _capabilities(r: Reader, ranks: tuple[dict, ...], out: dict) -> None:
    """security.capabilities beside privileged (which a container patch may not then touch):
    the capabilities every rank container adds, out of their patches."""
    contexts = [part["patch"]["container"].get("securityContext") for part in ranks]
    added = [(context or {}).get("capabilities", {}).get("add") for context in contexts]
    if not added[0] or any(a != added[0] for a in added) or any(set(c) != {"capabilities"} for c in contexts) \
            or any(set(c["capabilities"]) != {"add"} for c in contexts):
        return
    out["security"]["capabilities"] = added[0]
    r.came_from(("security", "capabilities"), ranks[0]["cloc"] + ("securityContext", "capabilities", "add"))
    for part in ranks:
        del part["patch"]["container"]["securityContext"]


def rank_host_launcher(r: Reader, launcher: dict, worker: dict) -> None:
    """What a launcher that is a worker has of the workers' pods, which rendering gives it
    again: their accelerators, /dev/shm, rank environment script and one-pod-per-node
    anti-affinity (each the same as theirs)."""
    if not launcher_as_worker(r):
        return
    for name in launcher["gpus"] if launcher["gpus"] != worker["gpus"] else ():
        r.lost(launcher["cloc"] + ("resources", "limits", name), f"the launcher's {name}, which differs from the "
                                                                 "workers' (a launcher that is a worker gets theirs)")
    launcher["gpus"] = {}
    if repels(worker["placement"].get("affinity")):
        strip_rank_hosts(launcher["placement"])  # the workers' onePodPerNode, which it gets as a worker
    for key, holder in (("volumes", "vloc"), ("mounts", "cloc")):
        same = [item for item in launcher[key] if isinstance(item, dict)
                and item.get("name") in (SHM_VOLUME, RANK_ENV_VOLUME) and item in worker[key]]
        launcher[key] = [item for item in launcher[key] if not any(item is s for s in same)]


def repels_rank_hosts(term) -> bool:
    """Whether an anti-affinity term is the one mpigen writes for onePodPerNode."""
    selector = term.get("labelSelector") if isinstance(term, dict) else None
    labels = selector.get("matchLabels") if isinstance(selector, dict) else None
    return isinstance(labels, dict) and EXCLUSIVE_LABEL in labels


def repels(affinity) -> bool:
    """Whether an affinity has the anti-affinity term mpigen writes for onePodPerNode."""
    return any(repels_rank_hosts(t) for t in _required(affinity))


def strip_rank_hosts(holder: dict) -> bool:
    """Take the onePodPerNode term out of the affinity `holder` (a pod spec, or a role's
    placement) holds, and whatever that leaves empty, the affinity itself included (the rest
    of it is the pod's own placement); whether there was such a term."""
    affinity = holder.get("affinity")
    terms = _required(affinity)
    kept = [t for t in terms if not repels_rank_hosts(t)]
    if len(kept) == len(terms):
        return False
    anti = affinity["podAntiAffinity"]
    if kept:
        anti[REQUIRED] = kept
        return True
    del anti[REQUIRED]
    if not anti:
        del affinity["podAntiAffinity"]
    if not affinity:
        del holder["affinity"]
    return True


def _required(affinity) -> list:
    anti = affinity.get("podAntiAffinity") if isinstance(affinity, dict) else None
    terms = anti.get(REQUIRED) if isinstance(anti, dict) else None
    return terms if isinstance(terms, list) else []


def completed(r: Reader, out: dict) -> None:
    """state: completed, from the suspend mpigen writes only for it on a job under a Kueue
    queue (whose suspend is Kueue's otherwise: a hand-written job's is read as running)."""
    if "scheduling" in out and r.get(("spec", "runPolicy", "suspend")) is True and written_by_mpigen(r.doc.data):
        out["state"] = "completed"
        r.came_from(("state",), ("spec", "runPolicy", "suspend"))
