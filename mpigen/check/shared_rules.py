"""What the targets share: the names of mpigen's additions (the rank environment's volume);
what a GitOps profile cannot render whatever the target (a launcher TTL: the controller
would recreate the deleted Job and run it again; a gang that counts the launcher, by the one
gang rule of mpigen.validate.gang); on the
targets whose workers outlive the launcher (static, mpijob), workers left running and
names too long once the run identity is added; a worker StatefulSet whose pods cannot be
created (static); the Kueue requests only a JobSet can carry; and on the targets whose
pods are reached by DNS names, a Hydra launch line of the blueprint's own that names no
launcher host; on the targets without the MPI Operator, Horovod elastic's host discovery."""

from __future__ import annotations

from mpigen.check.effective import EffectivePods, set_by
from mpigen.check.run_names import RUN_SUFFIX, name_room, run_suffix
from mpigen.compile.environment import RANK_ENV_VOLUME
from mpigen.compile.launch import HOST_DISCOVERY
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.validate.fields import NAME
from mpigen.validate.gang import launcher_applied_later
from mpigen.validate.names import MAX_POD_NAME
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(RANK_ENV_VOLUME,))
# A StatefulSet's pods carry the label controller-revision-hash=<StatefulSet name>-<hash>, the
# hash of up to 10 characters, and a label value has at most 63: with a longer StatefulSet
# name the controller's every pod create is refused (kubernetes/kubernetes#64023, #79337).
MAX_REVISION_HASH = 10
MAX_STATEFULSET_NAME = 63 - len("-") - MAX_REVISION_HASH


def profile_checks(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """What a GitOps profile cannot render: a launcher TTL (the controller would recreate
    the deleted Job and run it again), and a gang that counts the launcher."""
    if gitops == "none":
        return []
    gang = blueprint.spec.scheduling.gang
    out = launcher_applied_later(doc, gang.minAvailable if gang else None, blueprint.spec.workers, gitops)
    ttl = ("spec", "runPolicy", "ttlSecondsAfterFinished")
    if blueprint.spec.runPolicy.ttlSecondsAfterFinished is not None:
        out.append(error(doc.key_mark(ttl),
                         f"spec.runPolicy.ttlSecondsAfterFinished cannot be used with --gitops {gitops}: once "
                         "Kubernetes deletes the finished launcher Job, the GitOps controller sees it missing, "
                         "creates it again and the training runs again; remove it, and set spec.state: "
                         "completed or archived in Git instead"))
    return out


def one_workload_only(doc: Document, blueprint: Blueprint, target: str) -> list[Diagnostic]:
    """Kueue's topology request and MultiKueue, which only a JobSet and a v2beta1 MPIJob
    carry: Kueue sees the static target's workers and launcher as two workloads, and its
    MPIJob integration is the MPI Operator's (v2beta1), not the training-operator's v1."""
    scheduling = blueprint.spec.scheduling
    return [error(doc.key_mark(("spec", "scheduling", key)),
                  f"spec.scheduling.{key}: --target {target} cannot render it (Kueue admits a JobSet, or the MPI "
                  "Operator's v2beta1 MPIJob, as one workload); use --target jobset or --target mpijob")
            for key, value in (("topology", scheduling.topology), ("multiKueue", scheduling.multiKueue)) if value]


def launcher_on_host_network(doc: Document, pods: EffectivePods, then: str) -> list[Diagnostic]:
    """A launcher that is also a rank (runAsWorker) on the node's network, as its pod will
    run: its pod has the node's hostname, so mpirun cannot tell the hostfile's launcher entry
    is itself; `then` says what follows on this target and how to fix it."""
    launcher = pods.launcher
    if not (launcher.rank and launcher.host_network.value is True):
        return []
    return [error(doc.value_mark(("spec", "launcher", "runAsWorker")),
                  f"spec.launcher.runAsWorker with hostNetwork{set_by(launcher.host_network)}: a host-network pod has "
                  f"the node's hostname, so mpirun cannot tell that {then}")]


def hydra_launcher_host(doc: Document, blueprint: Blueprint, target: str) -> list[Diagnostic]:
    """On the targets whose pods are reached by DNS names (jobset, trainjob), Hydra's proxies
    (MPICH, Intel MPI) connect back to the launcher by the name mpiexec gives them, by default
    its bare host name, which no other pod resolves; mpigen's own line gives `-localhost` with
    the launcher's DNS name (mpigen.compile.launch.with_launcher_host), a blueprint's own
    launcherCommand must (found failing by the property test: "unable to get host address")."""
    spec = blueprint.spec
    command = spec.launcherCommand
    if command is None or spec.mpiImplementation == "OpenMPI" or any(_localhost(token) for word in command for token in word.split()):
        return []
    name = blueprint.metadata.name
    return [error(doc.key_mark(("spec", "launcherCommand")),
                  f"spec.launcherCommand: {spec.mpiImplementation}'s proxies on the workers connect back to the "
                  "launcher by its bare host name, which the other pods of a --target "
                  f"{target} job cannot resolve, and no rank starts; remove launcherCommand and give command (and "
                  "mpirunArgs), for which mpigen writes mpiexec -localhost with the launcher's DNS name, or give "
                  f"mpiexec -localhost {name}-launcher-0-0.{name} yourself (not under a GitOps profile, which "
                  "names each run)")]


_LAUNCH_FIELDS = ("launcherCommand", "command", "mpirunArgs")


def host_discovery(doc: Document, blueprint: Blueprint, target: str) -> list[Diagnostic]:
    """A launch line that asks for Horovod elastic's host discovery script on a target whose
    objects hold none (static, jobset, trainjob: only the MPI Operator's controller writes
    discover_hosts.sh, so horovodrun finds no script and the job never starts)."""
    spec = blueprint.spec
    for field in _LAUNCH_FIELDS:
        words = getattr(spec, field) or []
        for i, word in enumerate(words):
            if any(mark in word for mark in HOST_DISCOVERY):
                return [error(doc.value_mark(("spec", field, i)),
                              f"spec.{field}[{i}]: Horovod elastic's host discovery script "
                              "(/etc/mpi/discover_hosts.sh) is written by the MPI Operator's controller from the "
                              f"Running workers, and a --target {target} job has none: horovodrun cannot find its "
                              "hosts and the job never starts; render it with --target mpijob (the operator writes "
                              "the script), or run horovodrun with -np and the hostfile instead of elastic")]
    return []


def _localhost(word: str) -> bool:
    """Whether a word of a command is Hydra's -localhost option (any leading dashes, any case, =value)."""
    return word.startswith("-") and word.lstrip("-").split("=")[0].lower() == "localhost"


def worker_set_checks(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """Under a GitOps profile, where the workers are a StatefulSet or the operator's pods:
    workers left running after the launcher, and a worker pod name too long with the run
    identity."""
    if gitops == "none":
        return []
    out = []
    if blueprint.spec.runPolicy.cleanPodPolicy == "None" and blueprint.spec.state in ("running", "held"):
        policy = ("spec", "runPolicy", "cleanPodPolicy")
        out.append(warning(doc.value_mark(policy),
                           "spec.runPolicy.cleanPodPolicy is None: the workers keep running, and holding their "
                           "GPUs, after the launcher finishes, and the GitOps controller keeps them so; set "
                           "cleanPodPolicy: Running to release them when mpirun succeeds, or set spec.state: "
                           "completed once the job is done"))
    name, workers = blueprint.metadata.name, blueprint.spec.workers
    last_pod = f"{name}-worker-{workers - 1}"
    pod_room = name_room(name, len(last_pod), MAX_POD_NAME, gitops)
    if len(name) > pod_room:
        out.append(error(doc.value_mark(NAME),
                         f"metadata.name: with --gitops {gitops} each run is named <name>-<run> "
                         f"({RUN_SUFFIX} more characters), so the worker pod name would be "
                         f"{len(last_pod) + RUN_SUFFIX} characters, more than 63; shorten the name to at most "
                         f"{pod_room} characters"))
    return out


def statefulset_name(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """A worker StatefulSet, <name>[-<run>]-worker, longer than MAX_STATEFULSET_NAME: the
    StatefulSet is created and its pods never are. Not said where the worker pod's own name
    is already too long (validate.names, worker_set_checks): that error names the shorter room."""
    name, workers = blueprint.metadata.name, blueprint.spec.workers
    added = run_suffix(gitops)
    if len(name) > name_room(name, len(f"{name}-worker-{workers - 1}"), MAX_POD_NAME, gitops):
        return []
    room = name_room(name, len(f"{name}-worker"), MAX_STATEFULSET_NAME, gitops)
    if len(name) <= room:
        return []
    run, profile = ("-<run>", f" (--gitops {gitops} adds -<run>, {added} characters)") if added else ("", "")
    length = len(f"{name}-worker") + added
    return [error(doc.value_mark(NAME),
                  f"metadata.name: the worker StatefulSet <name>{run}-worker would be {length} "
                  f"characters{profile}, more than the {MAX_STATEFULSET_NAME} a StatefulSet's pods allow: each pod "
                  f"carries the label controller-revision-hash=<StatefulSet name>-<hash of {MAX_REVISION_HASH} "
                  "characters>, at most 63, and Kubernetes creates none of them (kubernetes/kubernetes#64023); "
                  f"shorten the name to at most {room} characters")]

