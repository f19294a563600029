"""What the trainjob target cannot render, each at the blueprint's line with the reason, and
the names its objects write into the pods. Some of it the Trainer itself does not check: a
TrainJob name too long for the JobSet it becomes, the container its MPI plugin needs."""

from __future__ import annotations

from mpigen.check.effective import EffectivePods
from mpigen.check.failure_checks import download_containers, refused, unknown_containers
from mpigen.check.pod_templates import name_taken
from mpigen.check.run_names import name_room, run_suffix
from mpigen.check.shared_rules import host_discovery, hydra_launcher_host
from mpigen.compile.launcher_env import NVIDIA_ENV, OPENMPI5_AGENT, SSH_ENV_NAMES
from mpigen.errors import Diagnostic, Mark, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.parts.sshd import key_readers, sshd_checks
from mpigen.render.target import Options
from mpigen.render.trainjob import hydra
from mpigen.render.trainjob.names import (DEFAULT_NAMED_KIND, NODE_CONTAINER, SSH_DIR, SSH_VOLUME, TRAINER_API,
                                          TRAINER_HOSTFILE_DIR, TRAINER_HOSTFILE_VOLUME, TRAINER_KEY_MOUNT,
                                          SSH_SETUP_CONTAINER, TRAINER_KEY_VOLUME, longest_pod_name)
from mpigen.render.trainjob.patches import CONTAINER_FIELDS, POD_FIELDS
from mpigen.render.trainjob.pods import OPENMPI4_AGENT
from mpigen.render.trainjob.versions import ALL_PLUGIN_ENV
from mpigen.validate.fields import NAME
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(TRAINER_KEY_VOLUME, TRAINER_HOSTFILE_VOLUME, SSH_VOLUME, hydra.VOLUME),
                    mounts=(TRAINER_KEY_MOUNT, TRAINER_HOSTFILE_DIR, SSH_DIR, hydra.FOLDER),
                    env=(*ALL_PLUGIN_ENV, OPENMPI4_AGENT, OPENMPI5_AGENT, *SSH_ENV_NAMES, *NVIDIA_ENV))
MAX_POD_NAME = 63  # a DNS-1035 label: the JobSet webhook's check
# TR:pkg/apis/trainer/v1alpha1/trainjob_types.go: runtimePatches reach replicated jobs' pod specs,
# not the JobSet's failurePolicy nor a Job's podFailurePolicy, which are the runtime's.
_NAMED_RUNTIME_POLICY = ("with a runtime the cluster has (spec.runtime.name), the failure policy is that runtime's "
                         "(its JobSet template's failurePolicy and its Jobs' podFailurePolicy), which a TrainJob's "
                         "runtimePatches cannot change; remove failurePolicy, or let mpigen write the runtime "
                         "(spec.runtime: {emit: TrainingRuntime})")


def checks(doc: Document, blueprint: Blueprint, options: Options, pods: EffectivePods) -> list[Diagnostic]:
    runtime = blueprint.spec.runtime or options.own.default_runtime
    named = runtime is not None and runtime.named
    out = [*_name_length(doc, blueprint, options), *_user(doc, pods),
           *sshd_checks(doc, pods, blueprint.spec.ssh.port, "trainjob"),
           *hydra_launcher_host(doc, blueprint, "trainjob"), *host_discovery(doc, blueprint, "trainjob"), *_unsupported(doc, blueprint, named)]
    for role in ("launcher", "worker"):
        # (the MPI container is `node` here: the check stage judges its name beside the init
        # containers', by TRAINJOB.main_container)
        out += name_taken(doc, blueprint, role, SSH_SETUP_CONTAINER, f"with --target trainjob the {role}'s pod has the "
                          f"init container that writes the SSH files, {SSH_SETUP_CONTAINER}", main=False)
    if named:
        out += _not_patchable(doc, blueprint, pods) + refused(doc, _NAMED_RUNTIME_POLICY)
    else:
        out += unknown_containers(doc, blueprint, [NODE_CONTAINER, *download_containers(blueprint)], "trainjob")
    return out


def cluster_runtime(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, Mark]]:
    """The runtime the job's TrainJob names without writing it (spec.runtime.name, or the
    environment's trainingRuntime), at the line that names it: the cluster must have it."""
    runtime = blueprint.spec.runtime or options.own.default_runtime
    if runtime is None or not runtime.named:
        return []
    kind = runtime.kind or DEFAULT_NAMED_KIND
    meta = {"name": runtime.name}
    if kind == "TrainingRuntime":
        meta["namespace"] = blueprint.metadata.namespace
    where = ("spec", "runtime", "name")
    mark = doc.value_mark(where) if doc.get(where) is not None else doc.value_mark(NAME)
    return [({"apiVersion": TRAINER_API, "kind": kind, "metadata": meta}, mark)]


def runtime_named(doc: Document, blueprint: Blueprint, options: Options) -> list[tuple[dict, str, Mark]]:
    """The runtime mpigen writes under the name spec.runtime.name gives it (with emit), at that
    field: two jobs that write one runtime (of one namespace, for a TrainingRuntime) are told to
    give one of them another name there, not to rename a job whose name the runtime does not bear."""
    runtime, where = blueprint.spec.runtime, ("spec", "runtime", "name")
    if runtime is None or runtime.emit is None or runtime.name is None or doc.get(where) is None:
        return []
    meta = {"name": runtime.name}
    if runtime.emit == "TrainingRuntime":
        meta["namespace"] = blueprint.metadata.namespace
    return [({"apiVersion": TRAINER_API, "kind": runtime.emit, "metadata": meta}, "spec.runtime.name",
             doc.value_mark(where))]


def _name_length(doc: Document, blueprint: Blueprint, options: Options) -> list[Diagnostic]:
    """The Trainer accepts any TrainJob name up to 63 characters, but its JobSet is refused when
    the longest pod name (with the five characters Kubernetes adds) is longer."""
    name, added = blueprint.metadata.name, run_suffix(options.gitops)
    longest = longest_pod_name(name, blueprint.spec.workers)
    room = name_room(name, longest, MAX_POD_NAME, options.gitops)
    if len(name) <= room:
        return []
    run = "-<run>" if added else ""
    profile = f" --gitops {options.gitops}" if added else ""
    return [error(doc.value_mark(NAME),
                  f"metadata.name: with --target trainjob{profile} the longest pod of the JobSet the Trainer "
                  f"makes would be named with {longest + added} characters (<name>{run}-launcher-0-0 or "
                  f"<name>{run}-node-0-<index>, and the 5 characters Kubernetes adds), more than the 63 the JobSet "
                  "webhook allows, and the Trainer accepts the TrainJob but never starts it; shorten the name to at "
                  f"most {room} characters")]


def _user(doc: Document, pods: EffectivePods) -> list[Diagnostic]:
    """ssh-setup copies the key, which Kubernetes mounts as root's with mode 0640, for each
    pod's user as it will run: a non-root user reads it through its group (fsGroup)."""
    return key_readers(doc, pods, "trainjob")


def _unsupported(doc: Document, blueprint: Blueprint, named: bool) -> list[Diagnostic]:
    spec = blueprint.spec
    out = []

    def refuse(loc: tuple, message: str, severity=error, key: bool = False) -> None:
        mark = doc.key_mark(loc) if key else doc.value_mark(loc)
        out.append(severity(mark, message))

    if spec.ssh.keySecret is not None:
        refuse(("spec", "ssh", "keySecret"), "spec.ssh.keySecret: with --target trainjob the Trainer makes each "
               "run's key itself (Secret <trainjob>-mpi-ssh-auth); remove keySecret")
    if spec.mainContainer not in (None, NODE_CONTAINER):
        refuse(("spec", "mainContainer"), f"spec.mainContainer: with --target trainjob the main container is named "
               f"{NODE_CONTAINER}, not {spec.mainContainer}: the Trainer's MPI plugin and the TrainJob's trainer "
               f"fields act only on the container named {NODE_CONTAINER} (Trainer v2.3.0 pkg/constants/constants.go "
               "Node)",
               severity=warning)
    for role in ("launcher", "worker"):
        own = getattr(spec.podTemplatePatch, role).containerName
        if own not in (None, NODE_CONTAINER):
            refuse(("spec", "podTemplatePatch", role, "containerName"), f"spec.podTemplatePatch.{role}.containerName: "
                   f"with --target trainjob the main container is named {NODE_CONTAINER}, not {own}: the Trainer acts "
                   f"only on the container named {NODE_CONTAINER} (Trainer v2.3.0 pkg/constants/constants.go Node)",
                   severity=warning)
    if spec.runPolicy.cleanPodPolicy == "All":
        refuse(("spec", "runPolicy", "cleanPodPolicy"), "spec.runPolicy.cleanPodPolicy: All cannot be rendered with "
               "--target trainjob: the JobSet deletes the running workers when the launcher succeeds, but keeps "
               "the launcher's pod; use Running")
    gang = spec.scheduling.gang
    if gang is not None and gang.scheduler == "kube-batch":
        refuse(("spec", "scheduling", "gang", "scheduler"), "spec.scheduling.gang.scheduler: the Trainer's "
               "podGroupPolicy knows coscheduling (scheduler-plugins) and Volcano, not kube-batch")
    if gang is not None and gang.minAvailable is not None:
        refuse(("spec", "scheduling", "gang", "minAvailable"), "spec.scheduling.gang.minAvailable: the Trainer's "
               "PodGroup counts every pod of the TrainJob; remove minAvailable")
    if spec.security.sshAuthMountPath is not None:
        refuse(("spec", "security", "sshAuthMountPath"), "spec.security.sshAuthMountPath is for --target mpijob; "
               f"--target trainjob has the Trainer mount the key at {TRAINER_KEY_MOUNT} and copies it for any user",
               severity=warning)
    if spec.ssh.sshdConfig is not None:
        refuse(("spec", "ssh", "sshdConfig"), "spec.ssh.sshdConfig is for --target mpijob; --target trainjob runs "
               "sshd with its own sshd_config, for any user (docs/ssh.md)", severity=warning)
    if named:
        _named_runtime(doc, blueprint, refuse)
    return out


def _named_runtime(doc: Document, blueprint: Blueprint, refuse) -> None:
    """A runtime of the cluster's decides how its pods start, are grouped and are kept."""
    spec, runtime = blueprint.spec, "a runtime the cluster has (spec.runtime.name)"
    if spec.scheduling.gang is not None:
        refuse(("spec", "scheduling", "gang"), f"spec.scheduling.gang: on {runtime} the runtime's podGroupPolicy "
               "decides gang scheduling; remove gang, or let mpigen write the runtime (spec.runtime.emit)", key=True)
    if spec.runPolicy.ttlSecondsAfterFinished is not None:
        refuse(("spec", "runPolicy", "ttlSecondsAfterFinished"), "spec.runPolicy.ttlSecondsAfterFinished: a "
               f"TrainJob has no such field; on {runtime} the runtime's JobSet template sets it; remove it, or "
               "let mpigen write the runtime (spec.runtime.emit)", key=True)
    if spec.resources.launcher:
        refuse(("spec", "resources", "launcher"), f"spec.resources.launcher: on {runtime} the launcher gets the "
               "runtime's resources and the TrainJob's resourcesPerNode (the workers'); remove it, or let mpigen "
               "write the runtime (spec.runtime.emit)", key=True)


def _not_patchable(doc: Document, blueprint: Blueprint, pods: EffectivePods) -> list[Diagnostic]:
    """What the pods would need that a TrainJob's runtimePatches may not carry (the Trainer's
    PodSpecPatch), once per blueprint field that asks for it."""
    found = {}
    for effective in pods:
        pod, name = effective.spec, effective.role
        for key in sorted(set(pod) - set(POD_FIELDS) - {"containers", "restartPolicy"}):
            found.setdefault(_pod_field_mark(doc, blueprint, name, key), {})[f"the {name} pod's {key}"] = "pod"
        main = pod["containers"][0]
        for key in sorted(set(main) - set(CONTAINER_FIELDS) - {"name", "image", "command", "args", "env", "resources"}):
            found.setdefault(_container_field_mark(doc, name, key), {})[f"the {name} container's {key}"] = "container"
    out = []
    for mark, fields in found.items():
        allowed = CONTAINER_FIELDS if "container" in fields.values() else POD_FIELDS
        out.append(error(mark, f"{' and '.join(fields)} cannot be set on a runtime the cluster has: a TrainJob's "
                               f"runtimePatches carry only {', '.join(allowed)}; let mpigen write the runtime "
                               "(spec.runtime.emit), or leave it to the runtime"))
    return out


def _pod_field_mark(doc: Document, blueprint: Blueprint, role: str, key: str):
    patch = ("spec", "podTemplatePatch", role, "pod", key)
    if doc.get(patch) is not None:
        return doc.key_mark(patch)
    if key in ("hostNetwork", "dnsPolicy"):
        return doc.key_mark(("spec", "network", "hostNetwork"))
    if key == "priorityClassName":
        return doc.key_mark(("spec", "placement", role, "priorityClassName"))
    if key == "initContainers":
        index = next(i for i, d in enumerate(blueprint.spec.datasets) if d.download is not None)
        return doc.key_mark(("spec", "datasets", index, "download"))
    return doc.key_mark(("spec", "runtime", "name")) if doc.get(("spec", "runtime")) else doc.value_mark(NAME)


def _container_field_mark(doc: Document, role: str, key: str):
    patch = ("spec", "podTemplatePatch", role, "container", key)
    if doc.get(patch) is not None:
        return doc.key_mark(patch)
    return doc.key_mark(("spec", "runtime", "name")) if doc.get(("spec", "runtime")) else doc.value_mark(NAME)
