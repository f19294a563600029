"""What the static target cannot render, and the names its objects write into the pods:
the operator's ConfigMap and kubectl volumes and mounts, and its label keys; and what of a
failure policy the workers' StatefulSet cannot honour."""

from __future__ import annotations

from mpigen.check.effective import EffectivePods
from mpigen.check.pod_templates import launcher_name_taken, statefulset_template
from mpigen.check.shared_rules import (host_discovery, launcher_on_host_network, one_workload_only, statefulset_name,
                                       worker_set_checks)
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.check.failure_checks import (POLICY, download_containers, main_containers, unknown_containers,
                                          written)
from mpigen.compile.names import CONFIG_MOUNT, CONFIG_VOLUME, KUBECTL_MOUNT, KUBECTL_VOLUME, OPERATOR_LABEL_KEYS
from mpigen.compile.launcher_env import NVIDIA_ENV, OPENMPI5_ENV_NAMES
from mpigen.render.static.launcher import KUBECTL_DELIVERY_CONTAINER, OPERATOR_ENV_NAMES
from mpigen.render.target import Options
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(CONFIG_VOLUME, KUBECTL_VOLUME), mounts=(CONFIG_MOUNT, KUBECTL_MOUNT),
                    env=(*OPENMPI5_ENV_NAMES, *(name for names in OPERATOR_ENV_NAMES.values() for name in names),
                         *NVIDIA_ENV),
                    labels=OPERATOR_LABEL_KEYS)


def checks(doc: Document, blueprint: Blueprint, options: Options, pods: EffectivePods) -> list[Diagnostic]:
    return (worker_set_checks(doc, blueprint, options.gitops) + statefulset_name(doc, blueprint, options.gitops)
            + _released_by_nobody(doc, blueprint, options.gitops)
            + one_workload_only(doc, blueprint, "static") + _two_workloads(doc, blueprint)
            + _failure_policy(doc, blueprint) + statefulset_template(doc, "worker")
            + launcher_name_taken(doc, blueprint, KUBECTL_DELIVERY_CONTAINER, "with --target static the launcher's "
                                  f"pod has the operator's init container {KUBECTL_DELIVERY_CONTAINER}, which "
                                  "copies kubectl into it")
            + _root_workers(doc, pods) + host_discovery(doc, blueprint, "static")
            + launcher_on_host_network(doc, pods, "the hostfile's <name>-launcher is itself; use the mpijob "
                                                  "target or keep the launcher off the host network"))


def _released_by_nobody(doc: Document, blueprint: Blueprint, gitops: str) -> list[Diagnostic]:
    """cleanPodPolicy Running or All without a GitOps profile. The operator's controller acts
    on the policy, deleting the workers when the job is done; the static target has no
    controller, and only a profile makes the launcher scale its workers to 0 when mpirun
    succeeds (mpigen.render.static.gitops): without one the StatefulSet's pods keep running,
    and holding their GPUs, after the launcher ends. The objects stay the controller's
    (shared contract, section 2), so a warning at the policy, naming what makes it act."""
    policy = blueprint.spec.runPolicy.cleanPodPolicy
    if gitops != "none" or policy == "None" or blueprint.spec.state not in ("running", "held"):
        return []
    held = "their GPUs" if blueprint.spec.gpusPerWorker > 0 else "their CPUs and memory"
    return [warning(doc.value_mark(("spec", "runPolicy", "cleanPodPolicy")),
                    f"spec.runPolicy.cleanPodPolicy: {policy} needs a GitOps profile with --target static: without "
                    f"one nothing acts on it, and the workers keep running, holding {held}, after the launcher "
                    "ends; set `gitops: argocd` or `gitops: flux` (mpigen.yaml, the environment's overlay, or "
                    "--gitops), and the launcher scales its workers to 0 when mpirun succeeds; or, applying with "
                    "kubectl alone, set cleanPodPolicy: None and spec.state: completed once the job is done")]


def _two_workloads(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    """A queue on the static target: the worker StatefulSet and the launcher Job are two Kueue
    workloads, admitted apart (no gang), and the StatefulSet's is Kueue's `statefulset`
    integration, which Kueue's code default leaves off (Kueue v0.19.2
    apis/config/v1beta2/defaults.go: with no integrations.frameworks configured, only
    defaultJobFrameworkName "batch/job"; the shipped config/components/manager/
    controller_manager_config.yaml and charts/kueue/values.yaml list "statefulset"): on such a
    Kueue the GPU workers bypass the queue. A warning at the queue, naming the targets Kueue
    admits as one workload; and `held`, which a gate cannot hold across two workloads released
    apart, an error at the state."""
    spec = blueprint.spec
    if spec.scheduling.queue is None or spec.state in ("completed", "archived"):  # nothing rendered
        return []
    out = [warning(doc.key_mark(("spec", "scheduling", "queue")),
                   "spec.scheduling.queue: with --target static Kueue sees two workloads, the workers' StatefulSet "
                   "and the launcher's Job, admitted apart (no gang), and the StatefulSet's only where Kueue's "
                   "statefulset integration is on (its code default enables batch/job alone: then the GPU workers "
                   "bypass the queue); the targets jobset, trainjob and mpijob make the job one workload: choose "
                   "one with --target, or for this job alone with a targets rule (docs/overlays.md)")]
    if spec.state == "held":
        out.append(error(doc.value_mark(("spec", "state")),
                         "spec.state: held with --target static: Kueue would hold the workers' StatefulSet and the "
                         "launcher's Job as two workloads, released apart (and the StatefulSet only where Kueue's "
                         "statefulset integration is on); use --target jobset (or trainjob, mpijob), which Kueue "
                         "admits as one workload"))
    return out


def _root_workers(doc: Document, pods: EffectivePods) -> list[Diagnostic]:
    """kubexec.sh, the launcher's way into the workers, copies the job's hosts file into the
    worker's /etc and appends it to /etc/hosts as the worker's user (mpigen.render.parts.templates
    kubexec.sh.j2, the operator's as it is): only root may, so a non-root worker fails the
    first mpirun (the MPI Operator's issues #288 and #301)."""
    worker = pods.worker
    if not worker.non_root:
        return []
    return [error(worker.mark(doc, worker.identity, ("spec", "security", "runAsUser")),
                  f"{worker.identity.where}: the static target reaches the workers with kubexec.sh, which writes "
                  "the job's hosts into the worker's /etc/hosts and needs root there (MPI Operator issues #288, "
                  "#301); run the workers as root here, or use --target jobset, --target trainjob or --target "
                  "mpijob (with spec.security.sshAuthMountPath), whose workers run as a non-root user")]


def _failure_policy(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    """The static target renders the policy on the launcher's Job; the workers' StatefulSet
    has no failure policy: it restarts a failed or evicted worker pod, uncounted, always."""
    if not written(doc):
        return []
    launcher, worker = main_containers(blueprint)
    out = [warning(doc.key_mark(POLICY),
                   "spec.runPolicy.failurePolicy: with --target static the rules act on the launcher's Job (its "
                   "podFailurePolicy, with restartPolicy Never); the workers' StatefulSet restarts a failed or "
                   "disrupted worker pod whatever the rules, and a worker's failure reaches them only as mpirun's "
                   "exit code in the launcher; --target jobset applies them to the workers too")]
    policy = blueprint.spec.runPolicy.failurePolicy
    for number, rule in enumerate(policy.rules):
        if rule.onExitCodes is not None and rule.onExitCodes.containerName == worker != launcher:
            out.append(error(doc.value_mark((*POLICY, "rules", number, "onExitCodes", "containerName")),
                             f"spec.runPolicy.failurePolicy.rules[{number}].onExitCodes.containerName: with --target "
                             f"static {worker} runs in the workers' StatefulSet, which has no failure policy (it "
                             f"restarts its pods whatever their exit code); name {launcher}, whose exit code is "
                             "mpirun's, or use --target jobset"))
    return out + unknown_containers(doc, blueprint, [launcher, *download_containers(blueprint)], "static",
                                    also=(worker,))
