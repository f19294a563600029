"""What the jobset target cannot render, each at the blueprint's line with the reason, and
the names its objects write into the pods (the SSH volume and folder, the hostfile's)."""

from __future__ import annotations

from mpigen.check.effective import EffectivePods, sharing
from mpigen.check.failure_checks import download_containers, main_containers, unknown_containers
from mpigen.check.run_names import name_room, run_suffix
from mpigen.check.shared_rules import host_discovery, hydra_launcher_host
from mpigen.compile.launcher_env import NVIDIA_ENV, SSH_ENV_NAMES
from mpigen.compile.names import CONFIG_MOUNT, CONFIG_VOLUME
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.jobset.keygen_hint import keygen_pull_hint
from mpigen.render.jobset.names import KEY_MOUNT, KEY_VOLUME, LAUNCHER_JOB, WORKER_JOB
from mpigen.render.parts.replicated import longest_pod_name
from mpigen.render.parts.sshd import key_readers, sshd_checks
from mpigen.render.target import Options
from mpigen.validate.fields import NAME
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(CONFIG_VOLUME, KEY_VOLUME), mounts=(CONFIG_MOUNT, KEY_MOUNT), env=(*SSH_ENV_NAMES, *NVIDIA_ENV))
MAX_POD_NAME = 63  # a DNS-1035 label: the JobSet webhook's check (ValidateCreate)


def checks(doc: Document, blueprint: Blueprint, options: Options, pods: EffectivePods) -> list[Diagnostic]:
    return [*_name_length(doc, blueprint, options), *_user(doc, pods),
            *sshd_checks(doc, pods, blueprint.spec.ssh.port, "jobset"), *hydra_launcher_host(doc, blueprint, "jobset"),
            *host_discovery(doc, blueprint, "jobset"),
            *_unsupported(doc, blueprint), *keygen_pull_hint(doc, blueprint),
            *unknown_containers(doc, blueprint, [*main_containers(blueprint), *download_containers(blueprint)],
                                "jobset")]


def _name_length(doc: Document, blueprint: Blueprint, options: Options) -> list[Diagnostic]:
    """The JobSet webhook refuses a JobSet whose longest pod name (with the five-character
    suffix) is not a DNS-1035 label; a GitOps profile adds -<run> to the name."""
    name, added = blueprint.metadata.name, run_suffix(options.gitops)
    longest = max(longest_pod_name(name, WORKER_JOB, blueprint.spec.workers), longest_pod_name(name, LAUNCHER_JOB, 1))
    room = name_room(name, longest, MAX_POD_NAME, options.gitops)
    if len(name) <= room:
        return []
    profile = f" --gitops {options.gitops}" if added else ""
    run = "-<run>" if added else ""
    return [error(doc.value_mark(NAME),
                  f"metadata.name: with --target jobset{profile} the longest pod name would be {longest + added} "
                  f"characters (<name>{run}-worker-0-<index> or <name>{run}-launcher-0-0, and the 5 characters "
                  "Kubernetes adds), more than the 63 the JobSet webhook allows; shorten the name to at most "
                  f"{room} characters")]


def _user(doc: Document, pods: EffectivePods) -> list[Diagnostic]:
    """Each pod mounts the run's key for its user as it will run: root's key (mode 0400) for a
    root user, which fsGroup would make group-readable, and ssh and sshd refuse; the key made
    group-readable (0440) for a non-root user, who reads it through fsGroup; and a known user,
    not whichever the image has."""
    unknown = [pod for pod in pods if pod.run_as_non_root.value is True and pod.user.value is None]
    out = [error(pod.mark(doc, pod.run_as_non_root, ("spec", "security", "runAsNonRoot")),
                 f"{pod.run_as_non_root.where}: with --target jobset the SSH key is mounted for a known user, and "
                 f"the user of {who} is the image's; set runAsUser beside it (the image's user, which must exist in "
                 "its /etc/passwd for sshd) and fsGroup")
           for pod, who in sharing(unknown, lambda pod: pod.run_as_non_root)]
    root = [pod for pod in pods if not pod.non_root and pod.fs_group.value is not None]
    out += [error(pod.mark(doc, pod.fs_group, ("spec", "security", "fsGroup")),
                  f"{pod.fs_group.where}: with --target jobset the user of {who} is root, and Kubernetes makes the SSH "
                  "key group-readable for fsGroup, which root's ssh and sshd refuse (UNPROTECTED PRIVATE KEY FILE); "
                  "remove fsGroup, or run as the image's non-root user (runAsUser)")
            for pod, who in sharing(root, lambda pod: pod.fs_group)]
    return out + key_readers(doc, [pod for pod in pods if pod not in unknown], "jobset")


def _unsupported(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    spec = blueprint.spec
    out = []
    if spec.runPolicy.cleanPodPolicy == "All":
        out.append(error(doc.value_mark(("spec", "runPolicy", "cleanPodPolicy")),
                         "spec.runPolicy.cleanPodPolicy: All cannot be rendered with --target jobset: JobSet "
                         "deletes the running workers when the launcher succeeds, but keeps the launcher's pod "
                         "(deleting its Job early would let JobSet start it again); use Running"))
    if spec.security.sshAuthMountPath is not None:
        out.append(warning(doc.value_mark(("spec", "security", "sshAuthMountPath")),
                           f"spec.security.sshAuthMountPath is for --target mpijob; --target jobset mounts the key "
                           f"at {KEY_MOUNT} for any user"))
    if spec.ssh.sshdConfig is not None:
        out.append(warning(doc.value_mark(("spec", "ssh", "sshdConfig")),
                           "spec.ssh.sshdConfig is for --target mpijob; --target jobset runs sshd with its own "
                           "/etc/mpi/sshd_config, for any user (docs/ssh.md)"))
    for image in ("kubectlImage", "keygenImage"):
        if spec.ssh.keySecret is not None and doc.get(("spec", "ssh", image)) is not None:
            out.append(warning(doc.value_mark(("spec", "ssh", image)),
                               f"spec.ssh.{image} is not used with spec.ssh.keySecret: no key is generated"))
    return out
