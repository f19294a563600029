"""Production jobs: the compile-time checks, the framework presets, rank-env.sh, and the
pod fields of the new blueprint fields (shared/reference/user-needs.md section 9,
mpi-operator.md 2.7 and 4.8, shared/contract.md section 1).

Expectations are written out by hand from those documents and the blueprint's field
descriptions, never computed with mpigen's own functions. Positions of diagnostics are
marked in the YAML of each case with `»` right before the reported key or value.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from dataclasses import dataclass

import pytest

from tests.conftest import blueprint_text, by_kind, render_text, run_mpigen, write
from tests.support.kubernetes_schema import validate

# --- helpers -------------------------------------------------------------------------------

HEAD = """\
apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: job
spec:
  image: example.com/train:1
  workers: 2
  command: [python, train.py]
"""
MARK = "»"
DIAGNOSTIC = re.compile(r"^job\.yaml:(\d+):(\d+): (error|warning): (.*)$")


def blueprint_yaml(spec: str) -> str:
    """HEAD plus spec fields given as dedented YAML."""
    return HEAD + textwrap.indent(textwrap.dedent(spec).lstrip("\n"), "  ")


def marked(text: str) -> tuple[str, int, int]:
    """The text without its one `»`, and the 1-based line and column where it was."""
    assert text.count(MARK) == 1, "a case marks exactly one position"
    before = text[:text.index(MARK)]
    return text.replace(MARK, ""), before.count("\n") + 1, len(before) - before.rfind("\n")


def diagnostics(done) -> list[tuple[int, int, str, str]]:
    """(line, column, severity, message) of every diagnostic line on stderr."""
    found = []
    for line in done.stderr.splitlines():
        match = DIAGNOSTIC.match(line)
        if match:
            found.append((int(match[1]), int(match[2]), match[3], match[4]))
        else:
            assert ": error: " not in line and ": warning: " not in line, f"unparsable diagnostic {line!r}"
    return found


@pytest.fixture
def cli_job(cli):
    """cli_job(yaml_text, *args): `mpigen ARGS job.yaml` in-process, with job.yaml holding the text."""
    def run(text: str, *args: str):
        write("job.yaml", text)
        return cli(*args, "job.yaml")

    return run


def pod(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def template_meta(obj: dict) -> dict:
    return obj["spec"]["template"].get("metadata", {})


def env_pairs(container: dict) -> list[tuple]:
    return [(e["name"], e.get("value")) for e in container.get("env", [])]


def static(spec: dict, name: str = "job", **options) -> dict[str, dict]:
    """The objects of the static target by kind, and by name under `name/<object name>`."""
    objects = render_text(blueprint_text(name, **spec), **options)
    indexed = by_kind(objects)
    indexed.update({f"name/{o['metadata']['name']}/{o['kind']}": o for o in objects})
    return indexed


# --- 1. every check: triggered at the right place, quiet on a near-identical blueprint ---------

VALIDATE = ("validate",)
STATIC = ("render", "--stdout")
V2BETA1 = ("render", "--stdout", "--target", "mpijob")
V1 = V2BETA1 + ("--mpijob-api", "kubeflow.org/v1")
ARGOCD = ("render", "--stdout", "--gitops", "argocd")
FLUX = ("render", "--stdout", "--gitops", "flux")


@dataclass(frozen=True)
class Check:
    bad: str                 # spec YAML with `»` before the reported key or value
    fix: tuple[str, str]     # (old, new): the near-identical blueprint that must stay quiet
    severity: str
    field: str               # the message starts with it
    args: tuple = VALIDATE

    def texts(self) -> tuple[str, int, int, str]:
        bad, line, column = marked(blueprint_yaml(self.bad))
        old, new = self.fix
        assert bad.count(old) == 1, f"{old!r} must occur exactly once"
        return bad, line, column, bad.replace(old, new)


def check(case_id, bad, fix, severity, field, args=VALIDATE, marks=()):
    return pytest.param(Check(bad, fix, severity, field, args), id=case_id, marks=marks)


DOWNLOAD = "download: {command: [sh, -c, 'echo > /data/x']}"
NP_FLAGS = ("-np", "--np", "-n", "--n", "-c", "--np=8", "--n=8")

CHECKS = [
    # accelerators (checks._check_accelerators)
    check("accelerator-on-worker", """
          resources:
            worker:
              cpu: 4
              »amd.com/gpu: 1
          """, ("amd.com/gpu", "xilinx.com/fpga"), "error", "spec.resources.worker"),
    check("mig-slices-mixed-on-worker", """
          gpuResource: nvidia.com/mig-1g.5gb
          gpusPerWorker: 1
          resources:
            worker:
              »nvidia.com/mig-2g.10gb: 1
          """, ("nvidia.com/mig-2g.10gb: 1", "cpu: 4"), "error", "spec.resources.worker"),
    check("accelerator-on-launcher", """
          resources:
            launcher:
              cpu: 1
              »habana.ai/gaudi2: 1
          """, ("habana.ai/gaudi2", "example.com/license"), "error", "spec.resources.launcher"),
    check("rdma-resource-is-accelerator", """
          network:
            rdma:
              resource: »amd.com/gpu
          """, ("amd.com/gpu", "rdma/hca"), "error", "spec.network.rdma.resource"),
    check("rdma-resource-without-domain", """
          network:
            rdma:
              resource: »hca
          """, ("resource: hca", "resource: rdma/hca"), "error", "spec.network.rdma.resource"),
    check("rdma-resource-also-in-resources", """
          network:
            rdma:
              resource: rdma/hca
          resources:
            worker:
              cpu: 4
              »rdma/hca: 1
          """, ("    rdma/hca: 1\n", ""), "error", "spec.resources.worker"),
    # slots (checks._check_slots)
    check("fewer-slots-than-gpus", """
          framework: horovod
          gpusPerWorker: 4
          slotsPerWorker: »2
          """, ("horovod", "custom"), "warning", "spec.slotsPerWorker"),
    check("more-slots-than-gpus", """
          framework: pytorch
          gpusPerWorker: 2
          slotsPerWorker: »4
          """, ("slotsPerWorker: 4", "slotsPerWorker: 2"), "warning", "spec.slotsPerWorker"),
    # mpirun arguments (checks._check_mpirun_args)
    *[check(f"mpirun-args-{flag}", f"""
            mpirunArgs:
              - --bind-to
              - core
              - »{flag}
            {'  - "8"' if '=' not in flag else ''}
            """, (f"  - {flag}\n", ""), "error", "spec.mpirunArgs[2]") for flag in NP_FLAGS],
    # shared memory (checks._check_shared_memory)
    check("shared-memory-equals-memory-limit", """
          gpusPerWorker: 2
          sharedMemory: »8Gi
          resources:
            worker:
              memory: 8Gi
          """, ("memory: 8Gi", "memory: 16Gi"), "error", "spec.sharedMemory"),
    check("shared-memory-above-memory-limit", """
          gpusPerWorker: 2
          sharedMemory: »12Gi
          resources:
            worker:
              memory: 8Gi
          """, ("sharedMemory: 12Gi", 'sharedMemory: "0"'), "error", "spec.sharedMemory"),
    # hugepages (checks._check_hugepages)
    *[check(f"hugepages-alone-on-{role}", f"""
            resources:
              {role}:
                »hugepages-2Mi: 1Gi
            """, ("hugepages-2Mi: 1Gi\n", "hugepages-2Mi: 1Gi\n      memory: 2Gi\n"), "error",
            f"spec.resources.{role}") for role in ("worker", "launcher")],
    # host network (checks._check_host_network)
    check("host-network-two-workers-per-node", """
          network:
            hostNetwork: true
          placement:
            worker:
              onePodPerNode: »false
          """, ("onePodPerNode: false", "onePodPerNode: true"), "error", "spec.placement.worker.onePodPerNode"),
    # launcher on GPU nodes (checks._check_launcher_placement)
    check("launcher-in-worker-gpu-pool", """
          gpusPerWorker: 1
          placement:
            worker:
              nodeSelector: {pool: gpu}
            launcher:
              »nodeSelector: {pool: gpu}
          """, ("launcher:\n      nodeSelector: {pool: gpu}", "launcher:\n      nodeSelector: {pool: cpu}"),
          "warning", "spec.placement.launcher.nodeSelector"),
    check("launcher-tolerates-gpu-taint", """
          gpusPerWorker: 1
          placement:
            launcher:
              tolerations:
                - »key: nvidia.com/gpu
                  operator: Exists
          """, ("key: nvidia.com/gpu", "key: dedicated"), "warning", "spec.placement.launcher.tolerations[0]"),
    check("launcher-tolerates-every-taint", """
          gpusPerWorker: 1
          placement:
            launcher:
              tolerations:
                - »operator: Exists
          """, ("gpusPerWorker: 1\n", "gpusPerWorker: 1\n  launcher:\n    runAsWorker: true\n"),
          "warning", "spec.placement.launcher.tolerations[0]"),
    # storage (checks._check_storage)
    *[check(f"claim-{mode}", f"""
            datasets:
              - name: data
                mountPath: /data
                pvc: data
                accessMode: »{mode}
            """, (f"accessMode: {mode}", f"accessMode: {good}"), "error", "spec.datasets[0].accessMode")
      for mode, good in (("ReadWriteOnce", "ReadWriteMany"), ("ReadWriteOncePod", "ReadOnlyMany"))],
    check("read-only-many-claim-written", """
          datasets:
            - name: data
              mountPath: /data
              pvc: data
              accessMode: ReadOnlyMany
              »readOnly: false
          """, ("ReadOnlyMany", "ReadWriteMany"), "error", "spec.datasets[0].readOnly"),
    check("read-only-many-claim-downloaded-into", f"""
          datasets:
            - name: data
              mountPath: /data
              pvc: data
              accessMode: ReadOnlyMany
              »{DOWNLOAD}
          """, ("ReadOnlyMany", "ReadWriteMany"), "error", "spec.datasets[0].download"),
    *[check(f"{source}-writable", f"""
            datasets:
              - name: conf
                mountPath: /conf
                {source}: train-config
                readOnly: »false
            """, ("readOnly: false", "readOnly: true"), "error", "spec.datasets[0].readOnly")
      for source in ("configMap", "secret")],
    *[check(f"download-onto-{source}", f"""
            datasets:
              - name: data
                mountPath: /data
                {source}: {value}
                »{DOWNLOAD}
            """, (f"{source}: {value}", "nfs: {server: fs.example.com, path: /data}"), "error",
            "spec.datasets[0].download")
      for source, value in (("hostPath", "/mnt/data"), ("configMap", "conf"), ("secret", "creds"))],
    check("download-container-name-too-long", f"""
          datasets:
            - name: »{'d' * 55}
              mountPath: /data
              pvc: data
              {DOWNLOAD}
          """, ("d" * 55, "d" * 54), "error", "spec.datasets[0].name"),
    # names and paths mpigen itself uses (validate._check_datasets)
    *[check(f"reserved-volume-{name}", f"""
            datasets:
              - name: »{name}
                mountPath: /data
                pvc: data
            """, (f"name: {name}", f"name: {name}x"), "error", "spec.datasets[0].name")
      for name in ("dshm", "mpigen-rank-env")],
    *[check(f"reserved-mount-{path}", f"""
            datasets:
              - name: data
                mountPath: »{path}
                pvc: data
            """, (f"mountPath: {path}", f"mountPath: {good}"), "error", "spec.datasets[0].mountPath")
      for path, good in (("/dev/shm", "/dev/shm-data"), ("/etc/mpigen", "/etc/mpigen-data"),
                         ("/etc/mpigen/data", "/srv/mpigen/data"), ("/dev", "/devices"))],
    # dataset sources and service account (model validators)
    check("dataset-with-two-sources", """
          datasets:
            - »name: bucket
              mountPath: /bucket
              csi: {driver: gcsfuse.csi.storage.gke.io}
              secret: creds
          """, ("    secret: creds\n", ""), "error", "spec.datasets[0]"),
    check("access-mode-without-pvc", """
          datasets:
            - »name: data
              mountPath: /data
              nfs: {server: fs.example.com, path: /data}
              accessMode: ReadWriteMany
          """, ("nfs: {server: fs.example.com, path: /data}", "pvc: data"), "error", "spec.datasets[0]"),
    check("service-account-name-and-annotations", """
          »serviceAccount:
            name: reader
            annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::111122223333:role/training"}
          """, ("  name: reader\n", ""), "error", "spec.serviceAccount"),
    # gang scheduling (checks._check_gang)
    check("gang-queue-not-volcano", """
          scheduling:
            gang:
              scheduler: kube-batch
              »queue: training
          """, ("kube-batch", "volcano"), "error", "spec.scheduling.gang.queue"),
    check("gang-timeout-not-scheduler-plugins", """
          scheduling:
            gang:
              scheduler: volcano
              »scheduleTimeoutSeconds: 600
          """, ("volcano", "scheduler-plugins"), "error", "spec.scheduling.gang.scheduleTimeoutSeconds"),
    check("gang-min-available-above-pods", """
          scheduling:
            gang:
              scheduler: volcano
              minAvailable: »4
          """, ("minAvailable: 4", "minAvailable: 3"), "error", "spec.scheduling.gang.minAvailable"),
    # podTemplatePatch against blueprint fields (checks._check_patch_overlap)
    check("patch-worker-affinity-and-placement-affinity", """
          placement:
            worker:
              affinity:
                nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}
          podTemplatePatch:
            worker:
              pod:
                »affinity: {podAffinity: {}}
          """, ("placement:\n    worker:", "placement:\n    launcher:"), "error",
          "spec.podTemplatePatch.worker.pod.affinity"),
    check("patch-worker-affinity-and-one-pod-per-node", """
          placement:
            worker:
              onePodPerNode: true
          podTemplatePatch:
            worker:
              pod:
                »affinity: {podAffinity: {}}
          """, ("onePodPerNode: true", "onePodPerNode: false"), "error", "spec.podTemplatePatch.worker.pod.affinity"),
    *[check(f"patch-worker-{key}-and-host-network", f"""
            network:
              hostNetwork: true
            podTemplatePatch:
              worker:
                pod:
                  »{key}: {value}
            """, ("hostNetwork: true\n  podTemplate", "hostNetwork: false\n  podTemplate"), "error",
            f"spec.podTemplatePatch.worker.pod.{key}")
      for key, value in (("affinity", "{podAffinity: {}}"), ("hostNetwork", "true"), ("dnsPolicy", "Default"))],
    check("patch-launcher-priority-class", """
          placement:
            launcher:
              priorityClassName: high
          podTemplatePatch:
            launcher:
              pod:
                »priorityClassName: low
          """, ("placement:\n    launcher:", "placement:\n    worker:"), "error",
          "spec.podTemplatePatch.launcher.pod.priorityClassName"),
    check("patch-launcher-security-context", """
          security:
            runAsUser: 1000
          podTemplatePatch:
            launcher:
              pod:
                »securityContext: {seccompProfile: {type: RuntimeDefault}}
          """, ("runAsUser: 1000", "privileged: false"), "error", "spec.podTemplatePatch.launcher.pod.securityContext"),
    check("patch-worker-image-pull-secrets", """
          imagePullSecrets: [registry]
          podTemplatePatch:
            worker:
              pod:
                »imagePullSecrets: [{name: other}]
          """, ("imagePullSecrets: [registry]", "imagePullSecrets: []"), "error",
          "spec.podTemplatePatch.worker.pod.imagePullSecrets"),
    check("patch-worker-service-account", """
          serviceAccount:
            annotations: {iam.gke.io/gcp-service-account: "trainer@example.iam.gserviceaccount.com"}
          podTemplatePatch:
            worker:
              pod:
                »serviceAccountName: other
          """, ('annotations: {iam.gke.io/gcp-service-account: "trainer@example.iam.gserviceaccount.com"}',
                "annotations: {}"), "error", "spec.podTemplatePatch.worker.pod.serviceAccountName"),
    check("patch-launcher-scheduler-name", """
          scheduling:
            gang:
              scheduler: volcano
          podTemplatePatch:
            launcher:
              pod:
                »schedulerName: default-scheduler
          """, ("gang:\n      scheduler: volcano", "queue: team-a"), "error",
          "spec.podTemplatePatch.launcher.pod.schedulerName"),
    check("patch-launcher-init-containers", f"""
          datasets: [{{name: data, mountPath: /data, pvc: data, {DOWNLOAD}}}]
          podTemplatePatch:
            launcher:
              pod:
                »initContainers: [{{name: warmup, image: busybox}}]
          """, ("[{name: data, mountPath: /data, pvc: data, " + DOWNLOAD + "}]", "[]"),
          "error", "spec.podTemplatePatch.launcher.pod.initContainers"),
    *[check(f"patch-worker-container-security-context-and-{what}", f"""
            {field}
            podTemplatePatch:
              worker:
                container:
                  »securityContext: {{readOnlyRootFilesystem: true}}
            """, fix, "error",
            "spec.podTemplatePatch.worker.container.securityContext")
      for what, field, fix in (
          ("capabilities", "security: {capabilities: [SYS_NICE]}", ("capabilities: [SYS_NICE]", "capabilities: []")),
          ("privileged", "security: {privileged: true}", ("privileged: true", "privileged: false")),
          ("rdma", "network: {rdma: {resource: rdma/hca}}", ("rdma: {resource: rdma/hca}", "hostNetwork: false")))],
    check("patch-privileged-container", """
          podTemplatePatch:
            worker:
              container:
                securityContext:
                  »privileged: true
          """, ("privileged: true", "privileged: false"), "error",
          "spec.podTemplatePatch.worker.container.securityContext.privileged"),
    # target checks (checks.production_target_checks)
    check("run-as-worker-on-training-operator-v1", """
          launcher:
            runAsWorker: »true
          """, ("runAsWorker: true", "runAsWorker: false"), "error", "spec.launcher.runAsWorker", V1),
    check("run-as-worker-with-host-network-static", """
          launcher:
            runAsWorker: »true
          network:
            hostNetwork: true
          """, ("hostNetwork: true", "hostNetwork: false"), "error", "spec.launcher.runAsWorker", STATIC),
    *[check(f"non-root-{key}-with-root-ssh-keys", f"""
            security:
              {key}: »{value}
            """, (f"{key}: {value}\n", f"{key}: {value}\n    sshAuthMountPath: /home/mpiuser/.ssh\n"), "error",
            f"spec.security.{key}", V2BETA1)
      for key, value in (("runAsUser", "1000"), ("runAsNonRoot", "true"))],
    check("non-root-with-explicit-root-ssh-path", """
          security:
            runAsUser: »1000
            sshAuthMountPath: /root/.ssh
          """, ("/root/.ssh", "/home/mpiuser/.ssh"), "error", "spec.security.runAsUser", V2BETA1),
    check("host-network-sshd-port", """
          network:
            hostNetwork: »true
          """, ("hostNetwork: true", "hostNetwork: false"), "warning", "spec.network.hostNetwork", V2BETA1),
    *[check(f"{implementation}-without-readiness-probe", f"""
            mpiImplementation: »{implementation}
            """, (f"{implementation}\n", f"{implementation}\n  podTemplatePatch:\n    worker:\n      container:\n"
                                          "        readinessProbe: {tcpSocket: {port: 2222}}\n"),
            "warning", "spec.mpiImplementation", V2BETA1)
      for implementation in ("IntelMPI", "MPICH")],
    check("gang-counts-launcher-that-waits", """
          launcher:
            waitForWorkers: true
          scheduling:
            gang:
              scheduler: volcano
              minAvailable: »3
          """, ("minAvailable: 3", "minAvailable: 2"), "warning", "spec.scheduling.gang.minAvailable", V2BETA1),
    check("kueue-queue-with-wait-for-workers", """
          launcher:
            waitForWorkers: true
          scheduling:
            queue: »team-a
          """, ("waitForWorkers: true", "waitForWorkers: false"), "warning", "spec.scheduling.queue", V2BETA1),
    # GitOps profile checks (checks.production_profile_checks)
    *[check(f"gang-counts-launcher-under-{name}", """
            runPolicy:
              cleanPodPolicy: Running
            scheduling:
              gang:
                scheduler: volcano
                minAvailable: »3
            """, ("minAvailable: 3", "minAvailable: 2"), "error", "spec.scheduling.gang.minAvailable", args)
      for name, args in (("argocd", ARGOCD), ("flux", FLUX))],
]


@pytest.mark.parametrize("case", CHECKS)
def test_check_triggers_at_the_offending_key_or_value(cli_job, case):
    """The check reports exactly one diagnostic, of its severity, naming the field, at the
    line and column of what to change; errors exit 2 with nothing on stdout, warnings exit 0."""
    bad, line, column, _ = case.texts()
    done = cli_job(bad, *case.args)
    found = diagnostics(done)
    assert [(f[0], f[1], f[2]) for f in found] == [(line, column, case.severity)], done.stderr
    assert found[0][3].startswith(case.field), found[0][3]
    if case.severity == "error":
        assert done.returncode == 2 and done.stdout == b""
    else:
        assert done.returncode == 0, done.stderr
        assert bool(done.stdout) == (case.args[0] == "render")


@pytest.mark.parametrize("case", CHECKS)
def test_check_stays_quiet_on_a_near_identical_blueprint(cli_job, case):
    """The same blueprint with the one change the message asks for has no diagnostic at all."""
    _, _, _, good = case.texts()
    done = cli_job(good, *case.args)
    assert diagnostics(done) == [] and done.returncode == 0, done.stderr


# Blueprint fields that do not write the patched field of that role: the patch wins over
# nothing, so refusing it is a false alarm (checks.POD_PATCH_FIELDS says the check is for
# "Fields of podTemplatePatch that a blueprint field also writes").
FALSE_ALARMS = [
    pytest.param("""
        placement:
          worker:
            onePodPerNode: true
        podTemplatePatch:
          launcher:
            pod:
              affinity: {nodeAffinity: {}}
        """, id="launcher-affinity-with-worker-one-pod-per-node"),
    pytest.param("""
        security:
          capabilities: [SYS_NICE]
        podTemplatePatch:
          launcher:
            container:
              securityContext: {readOnlyRootFilesystem: true}
        """, id="launcher-container-security-context-with-rank-capabilities"),
    pytest.param(f"""
        datasets:
          - name: data
            mountPath: /data
            pvc: data
            {DOWNLOAD}
        podTemplatePatch:
          worker:
            pod:
              initContainers: [{{name: warmup, image: busybox}}]
        """, id="worker-init-containers-with-a-launcher-download"),
]


@pytest.mark.parametrize("spec", FALSE_ALARMS)
def test_patch_overlap_only_for_fields_the_blueprint_writes_on_that_role(cli_job, spec):
    """The launcher gets no affinity from onePodPerNode and no capabilities (it is no rank
    host), and workers get no init containers from download steps (the launcher runs
    them): patching those is allowed."""
    done = cli_job(blueprint_yaml(spec), *VALIDATE)
    assert diagnostics(done) == [] and done.returncode == 0, done.stderr


def test_shared_memory_is_checked_against_a_rank_launcher_memory_limit(cli_job):
    """A launcher that runs ranks gets the workers' /dev/shm: 8Gi of it in a 4Gi launcher
    leaves its ranks nothing (user-needs 9: sharedMemory + app memory <= memory limit)."""
    text, line, column = marked(blueprint_yaml("""
        gpusPerWorker: 2
        sharedMemory: »8Gi
        launcher:
          runAsWorker: true
        resources:
          worker: {memory: 64Gi}
          launcher: {memory: 4Gi}
        """))
    done = cli_job(text, *VALIDATE)
    assert [(f[0], f[1], f[2]) for f in diagnostics(done)] == [(line, column, "error")], done.stderr


def test_the_cli_boundary_in_a_subprocess(tmp_path):
    """The same contract through `python -m mpigen`: an error exits 2 with nothing on stdout,
    a warning exits 0 and still renders."""
    error_text, line, column = marked(blueprint_yaml("network:\n  rdma:\n    resource: »amd.com/gpu\n"))
    (tmp_path / "job.yaml").write_text(error_text)
    done = run_mpigen("render", "--stdout", "job.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: spec.network.rdma.resource: ")
    warning_text, line, column = marked(blueprint_yaml("network:\n  hostNetwork: »true\n"))
    (tmp_path / "job.yaml").write_text(warning_text)
    done = run_mpigen("render", "--stdout", "--target", "mpijob", "job.yaml", cwd=tmp_path)
    assert done.returncode == 0 and b"kind: MPIJob" in done.stdout
    assert done.stderr.decode().startswith(f"job.yaml:{line}:{column}: warning: spec.network.hostNetwork: ")


# --- 2. framework presets: the launch line and the launcher environment ---------------------

PROGRAM = ["python", "train.py", "--lr", "0.1"]
HOROVOD_FLAGS = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH",
                 "-x", "PATH", "--mca", "pml", "ob1", "--mca", "btl", "^openib"]
TORCH_FLAGS = ["--allow-run-as-root", "--bind-to", "none", "--map-by", "slot", "-x", "LD_LIBRARY_PATH",
               "-x", "PATH"]
RANK_ENV = "/etc/mpigen/rank-env.sh"
USER_ENV = [("NCCL_DEBUG", "INFO")]
RENDEZVOUS_ENV = [("MASTER_ADDR", "job-worker-0"), ("MASTER_PORT", "29500")]
MPI_ENV = {
    "OpenMPI": [("PRTE_MCA_plm_ssh_agent", "/etc/mpi/kubexec.sh"), ("PRTE_MCA_prte_default_hostfile", "/etc/mpi/hostfile"),
                ("OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"), ("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile")],
    "IntelMPI": [("I_MPI_HYDRA_BOOTSTRAP_EXEC", "/etc/mpi/kubexec.sh"), ("I_MPI_HYDRA_HOST_FILE", "/etc/mpi/hostfile")],
    "MPICH": [("HYDRA_LAUNCHER_EXEC", "/etc/mpi/kubexec.sh"), ("HYDRA_HOST_FILE", "/etc/mpi/hostfile")],
}
NO_GPUS_ENV = [("NVIDIA_VISIBLE_DEVICES", None), ("NVIDIA_DRIVER_CAPABILITIES", None)]

# 3 workers x 2 GPUs (so 2 slots each): -np 6. Hydra (Intel MPI, MPICH) gets no framework flags.
PRESETS = {
    ("horovod", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("tensorflow", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("mxnet", "OpenMPI"): ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "NCCL_DEBUG", *PROGRAM],
    ("pytorch", "OpenMPI"): ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR",
                             "-x", "MASTER_PORT", RANK_ENV, *PROGRAM],
    ("deepspeed", "OpenMPI"): ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR",
                               "-x", "MASTER_PORT", RANK_ENV, *PROGRAM],
    ("custom", "OpenMPI"): ["mpirun", "-np", "6", "-x", "NCCL_DEBUG", *PROGRAM],
    **{(framework, hydra): ["mpirun", "-np", "6", "-genvlist", "NCCL_DEBUG", *PROGRAM]
       for framework in ("horovod", "tensorflow", "mxnet", "custom") for hydra in ("IntelMPI", "MPICH")},
    **{(framework, hydra): ["mpirun", "-np", "6", "-genvlist", "NCCL_DEBUG,MASTER_ADDR,MASTER_PORT", RANK_ENV,
                            *PROGRAM]
       for framework in ("pytorch", "deepspeed") for hydra in ("IntelMPI", "MPICH")},
}
assert len(PRESETS) == 18


def preset_spec(framework, implementation, **extra) -> dict:
    return {"framework": framework, "mpiImplementation": implementation, "workers": 3, "gpusPerWorker": 2,
            "command": PROGRAM, "env": {"NCCL_DEBUG": "INFO"}, **extra}


def rank_env_volume(objects: dict, obj: dict) -> str | None:
    """The mount path of the ConfigMap job-mpigen in the object's pod, checking the file mode."""
    volumes = [v for v in pod(obj).get("volumes", []) if v.get("configMap", {}).get("name") == "job-mpigen"]
    if not volumes:
        return None
    (volume,) = volumes
    assert volume["configMap"]["items"] == [{"key": "rank-env.sh", "path": "rank-env.sh", "mode": 365}]
    mounts = [m["mountPath"] for m in pod(obj)["containers"][0].get("volumeMounts", []) if m["name"] == volume["name"]]
    assert len(mounts) == 1
    assert "rank-env.sh" in objects["name/job-mpigen/ConfigMap"]["data"]
    return mounts[0]


@pytest.mark.parametrize("framework, implementation", list(PRESETS), ids=lambda v: v)
def test_preset_launch_line_and_launcher_env(framework, implementation):
    """-np = workers x slots, the framework's flags (Open MPI only), every env name
    forwarded, rank-env.sh before the program for PyTorch and DeepSpeed; the launcher env is
    the user's, MASTER_ADDR/MASTER_PORT (torch), the MPI variables, then the hidden GPUs."""
    objects = static(preset_spec(framework, implementation))
    launcher = objects["Job"]["spec"]["template"]["spec"]["containers"][0]
    torch = framework in ("pytorch", "deepspeed")
    assert launcher["command"] == PRESETS[framework, implementation]
    assert "args" not in launcher
    assert env_pairs(launcher) == USER_ENV + (RENDEZVOUS_ENV if torch else []) + MPI_ENV[implementation] + NO_GPUS_ENV
    worker = objects["StatefulSet"]
    assert rank_env_volume(objects, worker) == ("/etc/mpigen" if torch else None)
    assert ("name/job-mpigen/ConfigMap" in objects) == torch
    assert rank_env_volume(objects, objects["Job"]) is None  # the launcher runs no ranks
    mpijob = by_kind(render_text(blueprint_text("job", **preset_spec(framework, implementation)), target="mpijob"))
    assert mpijob["MPIJob"]["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0][
        "command"] == PRESETS[framework, implementation]


@pytest.mark.parametrize("implementation, command", [
    ("OpenMPI", ["mpirun", "-np", "8", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_ADDR", "-x", "MASTER_PORT",
                 RANK_ENV, *PROGRAM]),
    ("MPICH", ["mpirun", "-np", "8", "-genvlist", "NCCL_DEBUG,MASTER_ADDR,MASTER_PORT", RANK_ENV, *PROGRAM]),
])
def test_launcher_as_worker_adds_its_slots_and_is_the_master(implementation, command):
    """runAsWorker: -np counts the launcher's slots too ((3 + 1) x 2), MASTER_ADDR is the
    launcher (first in the hostfile), the launcher keeps its GPUs visible and mounts rank-env.sh."""
    objects = static(preset_spec("deepspeed", implementation, launcher={"runAsWorker": True}))
    launcher = pod(objects["Job"])["containers"][0]
    assert launcher["command"] == command
    assert env_pairs(launcher) == USER_ENV + [("MASTER_ADDR", "job-launcher"), ("MASTER_PORT", "29500")] + \
        MPI_ENV[implementation]
    assert rank_env_volume(objects, objects["Job"]) == "/etc/mpigen"
    assert rank_env_volume(objects, objects["StatefulSet"]) == "/etc/mpigen"
    assert objects["name/job-config/ConfigMap"]["data"]["hostfile"].splitlines()[0].split()[0].split(":")[0] == "job-launcher"


def test_user_master_port_wins_and_is_forwarded_once():
    """A MASTER_PORT in spec.env keeps its value and place; MASTER_ADDR is still added."""
    spec = preset_spec("pytorch", "OpenMPI", env={"NCCL_DEBUG": "INFO", "MASTER_PORT": "12345"})
    launcher = pod(static(spec)["Job"])["containers"][0]
    assert launcher["command"] == ["mpirun", "-np", "6", *TORCH_FLAGS, "-x", "NCCL_DEBUG", "-x", "MASTER_PORT",
                                   "-x", "MASTER_ADDR", RANK_ENV, *PROGRAM]
    assert env_pairs(launcher) == [("NCCL_DEBUG", "INFO"), ("MASTER_PORT", "12345"), ("MASTER_ADDR", "job-worker-0"),
                                   *MPI_ENV["OpenMPI"], *NO_GPUS_ENV]


def test_env_already_forwarded_by_the_preset_is_not_repeated():
    """Horovod's flags already forward PATH: a PATH in spec.env is not forwarded twice."""
    launcher = pod(static(preset_spec("horovod", "OpenMPI", env={"PATH": "/opt/bin:/usr/bin", "A": "1"}))["Job"])
    assert launcher["containers"][0]["command"] == ["mpirun", "-np", "6", *HOROVOD_FLAGS, "-x", "A", *PROGRAM]


def test_launcher_command_turns_the_presets_off():
    """launcherCommand replaces the whole line: no rank-env.sh, no ConfigMap, no MASTER_*."""
    objects = static(preset_spec("pytorch", "OpenMPI", command=None, launcherCommand=["sh", "-c", "torchrun x.py"]))
    launcher = pod(objects["Job"])["containers"][0]
    assert launcher["command"] == ["sh", "-c", "torchrun x.py"]
    assert not {"MASTER_ADDR", "MASTER_PORT"} & {name for name, _ in env_pairs(launcher)}
    assert "name/job-mpigen/ConfigMap" not in objects and rank_env_volume(objects, objects["StatefulSet"]) is None


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
def test_rank_env_follows_the_run_name_under_gitops(gitops):
    """Under a GitOps profile the job is <name>-<run>: MASTER_ADDR is that run's first
    worker, and the workers mount that run's ConfigMap."""
    objects = render_text(blueprint_text("job", **preset_spec("pytorch", "OpenMPI")), gitops=gitops)
    kinds = by_kind(objects)
    workers = kinds["StatefulSet"]["metadata"]["name"]
    run = workers[:-len("-worker")]
    assert re.fullmatch(r"job-[0-9a-f]{6}", run)
    launcher = pod(kinds["Job"])["containers"][0]
    assert ("MASTER_ADDR", f"{workers}-0") in env_pairs(launcher)
    names = {o["metadata"]["name"] for o in objects if o["kind"] == "ConfigMap"}
    assert f"{run}-mpigen" in names
    assert any(v.get("configMap", {}).get("name") == f"{run}-mpigen" for v in pod(kinds["StatefulSet"])["volumes"])


# --- 3. rank-env.sh runs ----------------------------------------------------------------------

PRINT = 'echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR $MASTER_PORT; printf "<%s>" "$@"'
MASTER = {"MASTER_ADDR": "job-worker-0", "MASTER_PORT": "29500"}


@pytest.fixture(scope="module")
def rank_env(tmp_path_factory):
    """rank-env.sh as the rendered ConfigMap ships it."""
    objects = render_text(blueprint_text("job", framework="pytorch"))
    (config,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "job-mpigen"]
    path = tmp_path_factory.mktemp("rank-env") / "rank-env.sh"
    path.write_text(config["data"]["rank-env.sh"])
    return path


def run_rank_env(script, env: dict):
    return subprocess.run(["/bin/sh", str(script), "sh", "-c", PRINT, "x", "a", "b c"], capture_output=True,
                          text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}, timeout=10)


@pytest.mark.parametrize("variables", [
    {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_LOCAL_RANK": "1",
     "OMPI_COMM_WORLD_LOCAL_SIZE": "2"},
    {"PMI_RANK": "3", "PMI_SIZE": "8", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"},
], ids=["open-mpi", "hydra"])
def test_rank_env_exports_the_torch_variables_and_keeps_the_arguments(rank_env, variables):
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE come from the MPI's own variables,
    MASTER_* pass through, and the program gets its arguments unsplit."""
    done = run_rank_env(rank_env, {**variables, **MASTER})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "3 8 1 2 job-worker-0 29500\n<a><b c>"


@pytest.mark.parametrize("env, message", [
    ({**MASTER}, "no MPI rank variables"),
    ({"OMPI_COMM_WORLD_RANK": "0", "OMPI_COMM_WORLD_SIZE": "2", **MASTER}, "no MPI rank variables"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "MASTER_PORT": "29500"}, "MASTER_ADDR"),
    ({"PMI_RANK": "0", "PMI_SIZE": "2", "MPI_LOCALRANKID": "0", "MASTER_ADDR": "job-worker-0"}, "MASTER_PORT"),
], ids=["no-rank-variables", "no-local-rank", "no-master-addr", "no-master-port"])
def test_rank_env_refuses_to_start_without_its_variables(rank_env, env, message):
    """Outside mpirun, or without the launcher's MASTER_*: a non-zero exit and a message,
    and the program never runs."""
    done = run_rank_env(rank_env, env)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr and done.stderr.startswith("rank-env.sh: ")


# --- 4. rendered objects validate; PodGroups as the operator writes them -----------------------

EVERY_FEATURE = {
    "namespace": "ml-team", "framework": "pytorch", "workers": 3, "gpusPerWorker": 2,
    "env": {"NCCL_DEBUG": "INFO"}, "sharedMemory": "4Gi",
    "resources": {"worker": {"cpu": "8", "memory": "32Gi", "hugepages-2Mi": "1Gi"}, "launcher": {"cpu": "1", "memory": "1Gi"}},
    "launcher": {"waitForWorkers": True},
    "network": {"hostNetwork": True, "rdma": {"resource": "rdma/hca", "count": 2},
                "secondaryNetworks": ["sriov-ib0", "ml-team/sriov-ib1"]},
    "placement": {
        "worker": {"nodeSelector": {"pool": "gpu"}, "onePodPerNode": True, "priorityClassName": "training-high",
                   "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                   "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                       {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                              "values": ["us-east-1a"]}]}]}}}},
        "launcher": {"priorityClassName": "training-low", "affinity": {"podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}}]}}}},
    "scheduling": {"gang": {"scheduler": "volcano", "queue": "training"}, "queue": "team-a"},
    "security": {"runAsUser": 1000, "runAsGroup": 1000, "fsGroup": 1000, "runAsNonRoot": True,
                 "capabilities": ["SYS_NICE"], "sshAuthMountPath": "/home/mpiuser/.ssh"},
    "imagePullSecrets": ["registry-credentials"],
    "serviceAccount": {"annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/training"}},
    "datasets": [
        {"name": "imagenet", "mountPath": "/data/imagenet", "pvc": "imagenet", "accessMode": "ReadOnlyMany"},
        {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "pvc": "ckpt", "accessMode": "ReadWriteMany",
         "download": {"image": "amazon/aws-cli:2.17.0", "command": ["aws", "s3", "sync", "s3://b/c", "/ckpt"],
                      "env": {"AWS_REGION": "us-east-1"}}},
        {"name": "bucket", "mountPath": "/bucket", "csi": {"driver": "gcsfuse.csi.storage.gke.io",
                                                           "volumeAttributes": {"bucketName": "shards"},
                                                           "nodePublishSecret": "bucket-credentials"}},
        {"name": "conf", "mountPath": "/conf", "configMap": "train-config"},
        {"name": "key", "mountPath": "/key", "secret": "wandb-api-key"}],
    "runPolicy": {"cleanPodPolicy": "Running"},
}
RANK_LAUNCHER = {
    "framework": "deepspeed", "mpiImplementation": "MPICH", "workers": 2, "gpusPerWorker": 4, "gpuResource": "amd.com/gpu",
    "resources": {"worker": {"memory": "6Gi"}, "launcher": {"memory": "8Gi"}},
    "launcher": {"runAsWorker": True},
    "network": {"rdma": {"resource": "vpc.amazonaws.com/efa", "ipcLock": False}, "secondaryNetworks": ["efa"]},
    "scheduling": {"gang": {"scheduler": "scheduler-plugins", "scheduleTimeoutSeconds": 600, "minAvailable": 2}},
    "security": {"privileged": True, "capabilities": ["IPC_LOCK"]},
    "serviceAccount": {"name": "data-reader"},
    "datasets": [{"name": "out", "mountPath": "/out", "readOnly": False, "nfs": {"server": "fs", "path": "/out"},
                  "download": {"command": ["sh", "-c", "true"]}}],
}
RENDERS = {"static": {}, "argocd": {"gitops": "argocd"}, "flux": {"gitops": "flux"},
           "mpijob-v2beta1": {"target": "mpijob"}}


def schema_checked(obj: dict) -> list[dict]:
    """The object itself, or for an MPIJob its replica templates as PodTemplates; nothing
    for a PodGroup (no Kubernetes schema)."""
    if obj["kind"] == "PodGroup":
        return []
    if obj["kind"] == "MPIJob":
        return [{"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": f"{obj['metadata']['name']}-{role}"},
                 "template": replica["template"]} for role, replica in obj["spec"]["mpiReplicaSpecs"].items()]
    return [obj]


@pytest.mark.parametrize("render", list(RENDERS))
@pytest.mark.parametrize("spec", [EVERY_FEATURE, RANK_LAUNCHER], ids=["every-feature", "launcher-as-worker"])
def test_every_feature_renders_objects_valid_for_kubernetes_1_30(spec, render):
    """Strict Kubernetes 1.30 schema validation of every rendered object (MPIJob pod
    templates as PodTemplates)."""
    objects = render_text(blueprint_text("prod", **spec), **RENDERS[render])
    kinds = {o["kind"] for o in objects}
    assert ("MPIJob" in kinds) == (render == "mpijob-v2beta1")
    assert "PodGroup" in kinds or render == "mpijob-v2beta1"
    checked = [item for obj in objects for item in schema_checked(obj)]
    assert len(checked) >= 3
    for obj in checked:
        validate(obj)


OWN_LABELS = {"app.kubernetes.io/managed-by": "mpigen", "mpigen.dev/job": "job"}
# 3 workers with cpu 2, memory 4Gi and 2 GPUs; a launcher with cpu 1 and memory 1Gi.
GANG_JOB = {"workers": 3, "gpusPerWorker": 2,
            "resources": {"worker": {"cpu": "2", "memory": "4Gi"}, "launcher": {"cpu": "1", "memory": "1Gi"}}}
ALL_PODS = {"cpu": "7", "memory": "13Gi", "nvidia.com/gpu": "6"}        # launcher + 3 workers
LAUNCHER_AND_TWO = {"cpu": "5", "memory": "9Gi", "nvidia.com/gpu": "4"}  # minMember 3: workers cut to 2
LAUNCHER_AND_ONE = {"cpu": "3", "memory": "5Gi", "nvidia.com/gpu": "2"}  # minMember 2: workers cut to 1


def pod_group(gang: dict, placement: dict | None = None, gitops: str = "none") -> dict:
    spec = {**GANG_JOB, "scheduling": {"gang": gang}, "placement": placement or {}}
    (group,) = [o for o in render_text(blueprint_text("job", **spec), gitops=gitops) if o["kind"] == "PodGroup"]
    return group


@pytest.mark.parametrize("gang, placement, expected", [
    ({"scheduler": "volcano"}, None,
     {"apiVersion": "scheduling.volcano.sh/v1beta1", "spec": {"minMember": 4, "minResources": ALL_PODS}}),
    ({"scheduler": "volcano", "queue": "training"}, {"launcher": {"priorityClassName": "high"},
                                                     "worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.volcano.sh/v1beta1",
      "spec": {"minMember": 4, "queue": "training", "priorityClassName": "high", "minResources": ALL_PODS}}),
    ({"scheduler": "volcano", "minAvailable": 2}, {"worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.volcano.sh/v1beta1",
      "spec": {"minMember": 2, "priorityClassName": "low", "minResources": LAUNCHER_AND_ONE}}),
    ({"scheduler": "scheduler-plugins"}, {"launcher": {"priorityClassName": "high"}},
     {"apiVersion": "scheduling.x-k8s.io/v1alpha1",
      "spec": {"minMember": 4, "scheduleTimeoutSeconds": 0, "minResources": ALL_PODS}}),
    ({"scheduler": "scheduler-plugins", "scheduleTimeoutSeconds": 600, "minAvailable": 3}, None,
     {"apiVersion": "scheduling.x-k8s.io/v1alpha1",
      "spec": {"minMember": 3, "scheduleTimeoutSeconds": 600, "minResources": LAUNCHER_AND_TWO}}),
    ({"scheduler": "kube-batch"}, None, {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "spec": {"minMember": 4}}),
    ({"scheduler": "kube-batch"}, {"worker": {"priorityClassName": "low"}},
     {"apiVersion": "scheduling.incubator.k8s.io/v1alpha1", "spec": {"minMember": 4, "priorityClassName": "low"}}),
], ids=["volcano", "volcano-queue-priority", "volcano-min-available", "scheduler-plugins",
        "scheduler-plugins-timeout", "kube-batch", "kube-batch-priority"])
def test_pod_group_has_exactly_the_operator_fields(gang, placement, expected):
    """Reference 2.7 (kube-batch) and 4.8 (Volcano, scheduler-plugins): minMember workers + 1
    or minAvailable; Volcano's queue and priority (the launcher's, else the workers');
    scheduler-plugins' timeout (default 0); minResources of the launcher plus the workers cut
    to minMember - 1; no labels but mpigen's own."""
    assert pod_group(gang, placement) == {**expected, "kind": "PodGroup", "metadata": {
        "name": "job", "namespace": "default", "labels": OWN_LABELS}}


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
def test_pod_group_under_gitops_counts_the_workers(gitops):
    """Under a GitOps profile the launcher is applied after the workers are ready: minMember
    is the workers alone; minResources follows reference 4.8 for that minMember; the pods
    name the run's group."""
    objects = render_text(blueprint_text("job", **GANG_JOB, scheduling={"gang": {"scheduler": "volcano"}}),
                          gitops=gitops)
    kinds = by_kind(objects)
    group = kinds["PodGroup"]
    assert group["spec"] == {"minMember": 3, "minResources": LAUNCHER_AND_TWO}
    assert re.fullmatch(r"job-[0-9a-f]{6}", group["metadata"]["name"])
    for workload in (kinds["StatefulSet"], kinds["Job"]):
        assert template_meta(workload)["annotations"]["scheduling.k8s.io/group-name"] == group["metadata"]["name"]


@pytest.mark.parametrize("gang, scheduler_name, annotation, label", [
    ({"scheduler": "volcano"}, "volcano", "scheduling.k8s.io/group-name", None),
    ({"scheduler": "kube-batch"}, "kube-batch", "scheduling.k8s.io/group-name", None),
    ({"scheduler": "scheduler-plugins"}, "scheduler-plugins-scheduler", None, "scheduling.x-k8s.io/pod-group"),
    ({"scheduler": "volcano", "schedulerName": "volcano-gpu"}, "volcano-gpu", "scheduling.k8s.io/group-name", None),
])
def test_both_pod_templates_join_the_group(gang, scheduler_name, annotation, label):
    """Launcher and workers get the gang scheduler and name the group: an annotation for
    Volcano and kube-batch, a label for scheduler-plugins."""
    objects = static({**GANG_JOB, "scheduling": {"gang": gang}})
    for workload in (objects["StatefulSet"], objects["Job"]):
        assert pod(workload)["schedulerName"] == scheduler_name
        meta = template_meta(workload)
        assert meta.get("annotations", {}).get(annotation or "-") == ("job" if annotation else None)
        assert meta["labels"].get(label or "-") == ("job" if label else None)


# --- 5. pod fields of the new blueprint fields ---------------------------------------------------

def selects(selector: dict, labels: dict) -> bool:
    """A Kubernetes label selector evaluated against labels."""
    ok = all(labels.get(key) == value for key, value in selector.get("matchLabels", {}).items())
    for expr in selector.get("matchExpressions", []):
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        ok &= {"In": key in labels and labels[key] in values, "NotIn": labels.get(key) not in values,
               "Exists": key in labels, "DoesNotExist": key not in labels}[op]
    return ok and bool(selector)


def anti_affinity_terms(obj: dict) -> list[dict]:
    anti = pod(obj).get("affinity", {}).get("podAntiAffinity", {})
    return anti.get("requiredDuringSchedulingIgnoredDuringExecution", [])


def worker_template(objects: list[dict], role: str = "Worker") -> dict:
    """The worker (or launcher) pod template of the static StatefulSet/Job or of the MPIJob."""
    kinds = by_kind(objects)
    if "MPIJob" in kinds:
        return kinds["MPIJob"]["spec"]["mpiReplicaSpecs"][role]["template"]
    return kinds["StatefulSet" if role == "Worker" else "Job"]["spec"]["template"]


@pytest.mark.parametrize("render", list(RENDERS))
def test_host_network_repels_the_job_workers_from_each_other(render):
    """hostNetwork: dnsPolicy ClusterFirstWithHostNet and a required anti-affinity on
    kubernetes.io/hostname whose selector matches the worker pods and not the launcher;
    the launcher stays on the pod network."""
    objects = render_text(blueprint_text("job", network={"hostNetwork": True}), **RENDERS[render])
    worker, launcher = worker_template(objects), worker_template(objects, "Launcher")
    assert worker["spec"]["hostNetwork"] is True and worker["spec"]["dnsPolicy"] == "ClusterFirstWithHostNet"
    (term,) = anti_affinity_terms({"spec": {"template": worker}})
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert selects(term["labelSelector"], worker["metadata"]["labels"])
    assert not selects(term["labelSelector"], launcher.get("metadata", {}).get("labels", {}))
    assert "hostNetwork" not in launcher["spec"] and "dnsPolicy" not in launcher["spec"]
    assert "affinity" not in launcher["spec"]


def test_one_pod_per_node_keeps_the_users_affinity():
    """onePodPerNode adds its term to the user's affinity: node affinity and the user's own
    anti-affinity terms stay, and the pod network is kept without hostNetwork."""
    user_term = {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}
    node = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}
    objects = static({"placement": {"worker": {"onePodPerNode": True, "affinity": {
        "nodeAffinity": node, "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [user_term]}}}}})
    worker = objects["StatefulSet"]
    assert pod(worker)["affinity"]["nodeAffinity"] == node
    terms = anti_affinity_terms(worker)
    assert terms[0] == user_term and len(terms) == 2
    assert selects(terms[1]["labelSelector"], template_meta(worker)["labels"])
    assert "hostNetwork" not in pod(worker) and "dnsPolicy" not in pod(worker)


@pytest.mark.parametrize("rdma, capabilities", [
    ({"resource": "rdma/hca", "count": 2}, ["IPC_LOCK", "SYS_NICE"]),
    ({"resource": "rdma/hca", "count": 2, "ipcLock": False}, ["SYS_NICE"]),
])
def test_rdma_devices_and_ipc_lock_on_rank_pods_only(rdma, capabilities):
    """RDMA: the device resource in the worker limits and IPC_LOCK (unless ipcLock: false)
    next to the blueprint's capabilities; the launcher gets neither."""
    objects = static({"gpusPerWorker": 1, "network": {"rdma": rdma}, "security": {"capabilities": ["SYS_NICE"]}})
    worker, launcher = pod(objects["StatefulSet"])["containers"][0], pod(objects["Job"])["containers"][0]
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": "1", "rdma/hca": "2"}
    assert worker["securityContext"] == {"allowPrivilegeEscalation": False,
                                         "capabilities": {"drop": ["ALL"], "add": capabilities}}
    assert "resources" not in launcher
    assert launcher["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


@pytest.mark.parametrize("run_as_worker", [False, True])
def test_secondary_networks_annotate_rank_pods_only(run_as_worker):
    """The Multus annotation lists the networks on rank pods: the workers, and the launcher
    only when it runs ranks."""
    objects = static({"network": {"secondaryNetworks": ["sriov-ib0", "ml-team/sriov-ib1"]},
                      "launcher": {"runAsWorker": run_as_worker}})
    networks = "k8s.v1.cni.cncf.io/networks"
    assert template_meta(objects["StatefulSet"])["annotations"][networks] == "sriov-ib0,ml-team/sriov-ib1"
    assert template_meta(objects["Job"]).get("annotations", {}).get(networks) == \
        ("sriov-ib0,ml-team/sriov-ib1" if run_as_worker else None)
    assert networks not in objects["StatefulSet"]["metadata"].get("annotations", {})


def shm_size(obj: dict) -> str | None:
    """sizeLimit of the memory-backed volume mounted at /dev/shm, or None without one."""
    mounts = [m["name"] for m in pod(obj)["containers"][0].get("volumeMounts", []) if m["mountPath"] == "/dev/shm"]
    volumes = [v for v in pod(obj).get("volumes", []) if v.get("emptyDir", {}).get("medium") == "Memory"]
    assert len(mounts) == len(volumes) <= 1
    if not volumes:
        return None
    assert volumes[0]["name"] == mounts[0]
    return volumes[0]["emptyDir"]["sizeLimit"]


@pytest.mark.parametrize("gpus, memory, shared_memory, expected", [
    (8, None, None, "8Gi"),          # 1Gi per GPU
    (8, "64Gi", None, "8Gi"),
    (8, "10Gi", None, "5Gi"),        # at most half the memory limit
    (8, "3Gi", None, "1536Mi"),
    (0, "8Gi", None, None),          # CPU jobs: the runtime's 64 MiB
    (2, "64Gi", "0", None),          # 0 turns it off
    (2, "64Gi", "16Gi", "16Gi"),     # an explicit size wins
    (0, None, "2Gi", "2Gi"),
])
def test_shared_memory_default_and_override(gpus, memory, shared_memory, expected):
    """/dev/shm on the workers: 1Gi per GPU capped at half the worker memory limit, none for
    CPU jobs, "0" disables, a given size wins; never on a launcher that runs no ranks."""
    spec = {"gpusPerWorker": gpus, "sharedMemory": shared_memory,
            "resources": {"worker": {"memory": memory}} if memory else None}
    objects = static(spec)
    assert shm_size(objects["StatefulSet"]) == expected
    assert shm_size(objects["Job"]) is None


def test_shared_memory_on_a_launcher_that_runs_ranks():
    objects = static({"gpusPerWorker": 2, "launcher": {"runAsWorker": True}})
    assert shm_size(objects["Job"]) == shm_size(objects["StatefulSet"]) == "2Gi"


def test_security_on_both_pod_templates_privileges_on_rank_containers():
    """runAsUser, runAsGroup, fsGroup, runAsNonRoot on both pods; capabilities and
    privileged only on the rank containers; image pull secrets and priority per role."""
    objects = static({"security": {"runAsUser": 1000, "runAsGroup": 2000, "fsGroup": 3000, "runAsNonRoot": True,
                                   "privileged": True, "capabilities": ["SYS_PTRACE"]},
                      "imagePullSecrets": ["registry-a", "registry-b"],
                      "placement": {"worker": {"priorityClassName": "high"}, "launcher": {"priorityClassName": "low"}}})
    for workload, priority in ((objects["StatefulSet"], "high"), (objects["Job"], "low")):
        assert pod(workload)["securityContext"] == {"runAsUser": 1000, "runAsGroup": 2000, "fsGroup": 3000,
                                                    "runAsNonRoot": True}
        assert pod(workload)["imagePullSecrets"] == [{"name": "registry-a"}, {"name": "registry-b"}]
        assert pod(workload)["priorityClassName"] == priority
    assert pod(objects["StatefulSet"])["containers"][0]["securityContext"] == {
        "capabilities": {"add": ["SYS_PTRACE"]}, "privileged": True}
    assert pod(objects["Job"])["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


ROLE_ARN = {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/training"}


def test_service_account_annotations_create_the_identity():
    """serviceAccount.annotations: ServiceAccount <name>-identity with them, run by the
    workers; the launcher keeps <name>-launcher (its Role's), which gets them too."""
    objects = static({"serviceAccount": {"annotations": ROLE_ARN}})
    identity = objects["name/job-identity/ServiceAccount"]
    assert identity["metadata"]["annotations"] == ROLE_ARN and identity["metadata"]["namespace"] == "default"
    assert pod(objects["StatefulSet"])["serviceAccountName"] == "job-identity"
    assert pod(objects["Job"])["serviceAccountName"] == "job-launcher"
    assert objects["name/job-launcher/ServiceAccount"]["metadata"]["annotations"] == ROLE_ARN
    for obj in (identity, objects["name/job-launcher/ServiceAccount"]):
        validate(obj)


def test_service_account_annotations_in_the_mpijob_target():
    """Target mpijob: the identity is emitted beside the MPIJob and both pods run as it."""
    objects = render_text(blueprint_text("job", serviceAccount={"annotations": ROLE_ARN}), target="mpijob")
    kinds = by_kind(objects)
    assert kinds["ServiceAccount"]["metadata"]["name"] == "job-identity"
    for role in ("Launcher", "Worker"):
        assert worker_template(objects, role)["spec"]["serviceAccountName"] == "job-identity"


def test_service_account_name_is_for_the_workers():
    objects = static({"serviceAccount": {"name": "data-reader"}})
    assert pod(objects["StatefulSet"])["serviceAccountName"] == "data-reader"
    assert pod(objects["Job"])["serviceAccountName"] == "job-launcher"
    assert "name/job-identity/ServiceAccount" not in objects


def test_download_runs_before_kubectl_delivery_on_the_launcher():
    """A dataset's download step is an init container of the launcher, before
    kubectl-delivery, with its image (default spec.image), env and the dataset mounted."""
    objects = static({"datasets": [
        {"name": "ckpt", "mountPath": "/ckpt", "readOnly": False, "pvc": "ckpt",
         "download": {"image": "amazon/aws-cli:2.17.0", "command": ["aws", "s3", "sync", "s3://b", "/ckpt"],
                      "env": {"AWS_REGION": "us-east-1"}}},
        {"name": "data", "mountPath": "/data", "nfs": {"server": "fs", "path": "/data"},
         "download": {"command": ["sh", "-c", "echo > /data/x"]}}]})
    init = pod(objects["Job"])["initContainers"]
    assert [c["name"] for c in init] == ["download-ckpt", "download-data", "kubectl-delivery"]
    assert init[0] == {"name": "download-ckpt", "image": "amazon/aws-cli:2.17.0",
                       "command": ["aws", "s3", "sync", "s3://b", "/ckpt"],
                       "env": [{"name": "AWS_REGION", "value": "us-east-1"}],
                       "volumeMounts": [{"name": "ckpt", "mountPath": "/ckpt"}],
                       "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}}
    assert init[1]["image"] == "example.com/train:1"
    assert "initContainers" not in pod(objects["StatefulSet"])


@pytest.mark.parametrize("gitops", ["none", "argocd"])
def test_kueue_queue_labels_the_workloads_not_the_pods(gitops):
    """Static target: kueue.x-k8s.io/queue-name on the StatefulSet and the Job, not on their
    pod templates."""
    objects = by_kind(render_text(blueprint_text("job", scheduling={"queue": "team-a"}), gitops=gitops))
    for workload in (objects["StatefulSet"], objects["Job"]):
        assert workload["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
        assert "kueue.x-k8s.io/queue-name" not in template_meta(workload).get("labels", {})


@pytest.mark.parametrize("queue", [None, "team-a"])
def test_kueue_queue_on_the_mpijob_leaves_suspend_to_kueue(queue):
    """Target mpijob: the label on the MPIJob and no runPolicy.suspend (Kueue's to set);
    without a queue, suspend: false is written out."""
    mpijob = by_kind(render_text(blueprint_text("job", scheduling={"queue": queue} if queue else None),
                                 target="mpijob"))["MPIJob"]
    assert mpijob["metadata"].get("labels", {}).get("kueue.x-k8s.io/queue-name") == queue
    assert mpijob["spec"]["runPolicy"].get("suspend") == (None if queue else False)
    for replica in mpijob["spec"]["mpiReplicaSpecs"].values():
        assert "kueue.x-k8s.io/queue-name" not in replica["template"].get("metadata", {}).get("labels", {})


@pytest.mark.parametrize("spec, policy, run_as_worker", [
    ({}, "AtStartup", False),
    ({"mpiImplementation": "IntelMPI"}, "WaitForWorkersReady", False),
    ({"mpiImplementation": "MPICH", "launcher": {"waitForWorkers": False}}, "AtStartup", False),
    ({"launcher": {"waitForWorkers": True, "runAsWorker": True}}, "WaitForWorkersReady", True),
])
def test_launcher_fields_in_the_v2beta1_mpijob(spec, policy, run_as_worker):
    """waitForWorkers (default: true for Hydra) is launcherCreationPolicy; runAsWorker is
    runLauncherAsWorker."""
    body = by_kind(render_text(blueprint_text("job", **spec), target="mpijob"))["MPIJob"]["spec"]
    assert body["launcherCreationPolicy"] == policy and body["runLauncherAsWorker"] is run_as_worker


# --- 6. `mpigen schema` documents every new field -------------------------------------------------

NEW_FIELDS = {
    "CSI": ("driver", "volumeAttributes", "nodePublishSecret"),
    "Download": ("image", "command", "env"),
    "Dataset": ("accessMode", "csi", "configMap", "secret", "download"),
    "RolePlacement": ("affinity", "priorityClassName"),
    "WorkerPlacement": ("affinity", "priorityClassName", "onePodPerNode"),
    "Gang": ("scheduler", "schedulerName", "minAvailable", "queue", "scheduleTimeoutSeconds"),
    "Scheduling": ("gang", "queue"),
    "Launcher": ("runAsWorker", "waitForWorkers"),
    "RDMA": ("resource", "count", "ipcLock"),
    "Network": ("hostNetwork", "rdma", "secondaryNetworks"),
    "Security": ("runAsUser", "runAsGroup", "fsGroup", "runAsNonRoot", "privileged", "capabilities",
                 "sshAuthMountPath"),
    "ServiceAccount": ("name", "annotations"),
    "Spec": ("sharedMemory", "launcher", "network", "scheduling", "security", "imagePullSecrets", "serviceAccount"),
}
FIELDS = [(model, field) for model, fields in NEW_FIELDS.items() for field in fields]


@pytest.fixture(scope="module")
def schema_defs() -> dict:
    done = run_mpigen("schema")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["$defs"]


def is_model(prop: dict) -> bool:
    """A field whose value is another model (an object with fields of its own)."""
    return "$ref" in json.dumps(prop)


@pytest.mark.parametrize("model, field", FIELDS, ids=[f"{m}.{f}" for m, f in FIELDS])
def test_schema_describes_every_new_field(schema_defs, model, field):
    assert schema_defs[model]["properties"][field].get("description", "").strip()


LEAVES = [(model, field) for model, field in FIELDS if field not in
          ("csi", "download", "gang", "rdma", "launcher", "network", "scheduling", "security", "serviceAccount")]


@pytest.mark.parametrize("model, field", LEAVES, ids=[f"{m}.{f}" for m, f in LEAVES])
def test_schema_gives_every_new_leaf_field_an_example_or_default(schema_defs, model, field):
    """A leaf field (not a model) has `examples`, or a default that is not null."""
    prop = schema_defs[model]["properties"][field]
    assert not is_model(prop)
    assert prop.get("examples") or prop.get("default") is not None, prop


def test_the_model_fields_left_out_of_the_leaves_are_models(schema_defs):
    assert all(is_model(schema_defs[m]["properties"][f]) for m, f in FIELDS if (m, f) not in LEAVES)


def test_schema_names_the_service_account_mpigen_creates(schema_defs):
    assert "<name>-identity" in schema_defs["ServiceAccount"]["properties"]["annotations"]["description"]
