"""What an MPIJob resource cannot run under each operator API, and the names the operators
write into its pods (their ConfigMap's volume and mount).

kubeflow.org/v1 (the training-operator) has no runLauncherAsWorker and always writes an
Open MPI hostfile (`host slots=N`), which Intel MPI and MPICH (Hydra: `host:N`) cannot
read. kubeflow.org/v2beta1 reaches the workers over SSH, and creates the launcher only once
the workers run when it waits for them.
"""

from __future__ import annotations

from mpigen.check.effective import EffectivePods, set_by, sharing
from mpigen.check.failure_checks import refused
from mpigen.check.pod_templates import launcher_name_taken
from mpigen.check.shared_rules import one_workload_only, worker_set_checks
from mpigen.compile.launcher_env import OPENMPI5_ENV_NAMES
from mpigen.compile.mpijob import V1, V2BETA1
from mpigen.compile.names import CONFIG_MOUNT, CONFIG_VOLUME
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.mpijob.kinds import KUBECTL_DELIVERY
from mpigen.render.target import Options
from mpigen.validate.gang import MIN_AVAILABLE, gang_pods, never_starts
from mpigen.validate.reserved import Reserved

# MO:pkg/apis/kubeflow/v2beta1/types.go RunPolicy, and kubeflow.org/v1's: backoffLimit alone (mpi-operator#537).
_NO_FAILURE_POLICY = ("an MPIJob (kubeflow.org/v2beta1 and v1) has no failure policy: the operator counts every "
                      "failure of the launcher against runPolicy.backoffLimit, disruptions and exit codes alike "
                      "(mpi-operator#537); remove failurePolicy and set backoffLimit, or use --target jobset "
                      "(rules on every pod) or static (rules on the launcher's Job)")
RESERVED = Reserved(volumes=(CONFIG_VOLUME,), mounts=(CONFIG_MOUNT,), env=OPENMPI5_ENV_NAMES)


def checks(doc: Document, blueprint: Blueprint, options: Options, pods: EffectivePods) -> list[Diagnostic]:
    out = worker_set_checks(doc, blueprint, options.gitops) + refused(doc, _NO_FAILURE_POLICY)
    if options.own.api == V1:
        return (out + one_workload_only(doc, blueprint, "mpijob --mpijob-api kubeflow.org/v1") + _v1_checks(doc, blueprint)
                + launcher_name_taken(doc, blueprint, KUBECTL_DELIVERY["name"], "with --mpijob-api kubeflow.org/v1 "
                                      "the training-operator appends its init container "
                                      f"{KUBECTL_DELIVERY['name']} to the launcher's pod")
                + _no_sshd(doc, blueprint))
    if options.own.api == V2BETA1:
        return out + _ssh_user(doc, blueprint, pods) + _user_sshd_port(doc, blueprint, pods) \
            + _v2beta1_checks(doc, blueprint, pods)
    return out


def _v1_checks(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    spec = blueprint.spec
    out: list[Diagnostic] = []
    if spec.scheduling.queue is not None:
        # Kueue's MPIJob integration is the MPI Operator's v2beta1 (v0.17.0 to v0.20:
        # pkg/controller/jobs/mpijob/mpijob_controller.go imports mpi-operator
        # pkg/apis/kubeflow/v2beta1; its kubeflow integrations, pkg/controller/jobs/kubeflow/jobs/,
        # have no MPIJob): the training-operator runs a v1 MPIJob at once, queue label or gate.
        out.append(error(doc.value_mark(("spec", "scheduling", "queue")),
                         "spec.scheduling.queue with --mpijob-api kubeflow.org/v1: Kueue manages only the MPI "
                         "Operator's kubeflow.org/v2beta1 MPIJob, so the training-operator would run this one at "
                         "once, never queued nor held; use --mpijob-api kubeflow.org/v2beta1 or --target jobset"))
    if spec.launcher.runAsWorker:
        out.append(error(doc.value_mark(("spec", "launcher", "runAsWorker")),
                         "spec.launcher.runAsWorker: the training-operator's kubeflow.org/v1 MPIJob has no "
                         "runLauncherAsWorker; use --mpijob-api kubeflow.org/v2beta1 or the static target"))
    if spec.mpiImplementation == "OpenMPI":
        return out
    loc = ("spec", "mpiImplementation")
    out.append(error(doc.value_mark(loc),
                     f"spec.mpiImplementation: {blueprint.spec.mpiImplementation} cannot run as a kubeflow.org/v1 "
                     "MPIJob: the training-operator writes an Open MPI hostfile (host slots=N) that Hydra cannot "
                     "read; use --mpijob-api kubeflow.org/v2beta1, or the static target"))
    return out


def _no_sshd(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    """kubeflow.org/v1's launcher reaches its workers with kubectl exec: no sshd runs."""
    if blueprint.spec.ssh.sshdConfig is None:
        return []
    return [warning(doc.value_mark(("spec", "ssh", "sshdConfig")),
                    "spec.ssh.sshdConfig is for --mpijob-api kubeflow.org/v2beta1; kubeflow.org/v1's launcher "
                    "reaches the workers with kubectl exec, and no sshd runs")]


def _ssh_user(doc: Document, blueprint: Blueprint, pods: EffectivePods) -> list[Diagnostic]:
    """v2beta1 reaches the workers over SSH, with the keys the operator mounts into both roles'
    pods at sshAuthMountPath (default /root/.ssh), which only root can read."""
    if blueprint.spec.security.sshAuthMountPath not in (None, "/root/.ssh"):
        return []
    readers = [pod for pod in pods if pod.non_root]
    return [error(pod.mark(doc, pod.identity, ("spec", "security", "runAsUser")),
                  f"{pod.identity.where}: the user of {who} is not root, and cannot read SSH keys mounted at "
                  "/root/.ssh; set spec.security.sshAuthMountPath to its ~/.ssh (the operator's images: "
                  "/home/mpiuser/.ssh)") for pod, who in sharing(readers, lambda pod: pod.identity)]


def _user_sshd_port(doc: Document, blueprint: Blueprint, pods: EffectivePods) -> list[Diagnostic]:
    """A non-root worker without the image's sshd configuration runs mpigen's sshd line on
    spec.ssh.port (mpigen.compile.user_sshd), which that user cannot bind below 1024."""
    port = blueprint.spec.ssh.port
    if blueprint.spec.ssh.sshdConfig is not None or not pods.worker.non_root or port >= 1024:
        return []
    return [error(doc.value_mark(("spec", "ssh", "port")),
                  f"spec.ssh.port: {port} is below 1024, which the workers' sshd cannot bind as a user other than "
                  f"root{set_by(pods.worker.identity)}; use 2222 (the default, the port of the operator's images)")]


def _v2beta1_checks(doc: Document, blueprint: Blueprint, pods: EffectivePods) -> list[Diagnostic]:
    spec = blueprint.spec
    out: list[Diagnostic] = []
    host = pods.worker.host_network
    if host.value is True:
        out.append(warning(doc.value_mark(host.origin or ("spec", "network", "hostNetwork")),
                           f"{host.where}: the workers' sshd shares the node's ports, where the node's own sshd has "
                           "22; the image's sshd must listen on another port (the operator's images use 2222, "
                           "mpi-op#593)"))
    worker_patch = spec.podTemplatePatch.worker.container
    if spec.mpiImplementation != "OpenMPI" and "readinessProbe" not in worker_patch:
        out.append(warning(doc.value_mark(("spec", "mpiImplementation")),
                           f"spec.mpiImplementation: {spec.mpiImplementation} needs the workers' sshd up before "
                           "mpirun starts (mpi-op PR #425): add spec.podTemplatePatch.worker.container."
                           "readinessProbe (tcpSocket on the sshd port, 2222 in the operator's images)"))
    gang = spec.scheduling.gang
    if gang is not None and spec.wait_for_workers and never_starts(gang.minAvailable,
                                                                   gang_pods(spec.workers, launcher_waits=True)):
        out.append(warning(doc.value_mark(MIN_AVAILABLE),
                           f"spec.scheduling.gang.minAvailable: {gang.minAvailable} counts the launcher, but with "
                           "waitForWorkers the operator creates the launcher only once the workers run, and the "
                           "workers wait for the whole group: nothing starts (mpi-op#608); use "
                           f"minAvailable: {spec.workers}, or remove it"))
    if spec.scheduling.queue is not None and spec.wait_for_workers:
        out.append(warning(doc.value_mark(("spec", "scheduling", "queue")),
                           "spec.scheduling.queue with waitForWorkers: while Kueue keeps the job suspended, the "
                           "operator counts 0 of 0 workers ready and creates the launcher, which then starts "
                           "before the workers when the job is admitted (mpi-op#615); set "
                           "spec.launcher.waitForWorkers: false and rely on the launcher's retries"))
    return out
