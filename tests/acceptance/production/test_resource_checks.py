"""The production checks of resources, placement and storage: accelerators, slots, mpirun
arguments, shared memory, hugepages, host network, the launcher on GPU nodes, storage;
each triggered at the offending key or value and quiet on a near-identical blueprint.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.production import (DOWNLOAD, NP_FLAGS, VALIDATE, assert_check_stays_quiet, assert_check_triggers,
                                      blueprint_yaml, check, diagnostics, marked)


CHECKS = [
    # accelerators (checks._check_accelerators)
    check("accelerator-on-worker", """
          resources:
            worker:
              cpu: 4
              »amd.com/gpu: 1
            launcher: {cpu: 1}
          """, ("amd.com/gpu", "xilinx.com/fpga"), "error", "spec.resources.worker"),
    check("mig-slices-mixed-on-worker", """
          gpuResource: nvidia.com/mig-1g.5gb
          gpusPerWorker: 1
          resources:
            worker:
              »nvidia.com/mig-2g.10gb: 1
          """, ("nvidia.com/mig-2g.10gb: 1", "cpu: 4\n    launcher: {cpu: 1}"), "error", "spec.resources.worker"),
    check("accelerator-on-launcher", """
          resources:
            launcher:
              cpu: 1
              »habana.ai/gaudi2: 1
          """, ("habana.ai/gaudi2", "example.com/license"), "error", "spec.resources.launcher"),
    check("gpu-resource-misspelt-plural", """
          gpusPerWorker: 1
          gpuResource: »nvidia.com/gpus
          """, ("nvidia.com/gpus", "nvidia.com/gpu"), "warning", "spec.gpuResource"),
    check("gpu-resource-misspelt-vendor", """
          gpusPerWorker: 2
          slotsPerWorker: 2
          gpuResource: »nvida.com/gpu
          """, ("nvida.com/gpu", "gpu.intel.com/xe"), "warning", "spec.gpuResource"),
    check("gpu-resource-unknown", """
          gpusPerWorker: 1
          gpuResource: »example.com/accelerator
          """, ("gpusPerWorker: 1", "gpusPerWorker: 0"), "warning", "spec.gpuResource"),
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
            launcher: {cpu: 1}
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
            """, (f"    - {flag}\n" + ('    - "8"\n' if "=" not in flag else ""), ""), "error",
            "spec.mpirunArgs[2]") for flag in NP_FLAGS],  # the flag and its value go: no item left over
    # shared memory (checks._check_shared_memory)
    check("shared-memory-equals-memory-limit", """
          gpusPerWorker: 2
          sharedMemory: »8Gi
          resources:
            worker:
              memory: 8Gi
            launcher: {memory: 2Gi}
          """, ("memory: 8Gi", "memory: 16Gi"), "error", "spec.sharedMemory"),
    check("shared-memory-above-memory-limit", """
          gpusPerWorker: 2
          sharedMemory: »12Gi
          resources:
            worker:
              memory: 8Gi
            launcher: {memory: 2Gi}
          """, ("sharedMemory: 12Gi", 'sharedMemory: "0"'), "error", "spec.sharedMemory"),
    # hugepages (checks._check_hugepages)
    *[check(f"hugepages-alone-on-{role}", f"""
            resources:
              {role}:
                »hugepages-2Mi: 1Gi
            """, ("hugepages-2Mi: 1Gi\n", "hugepages-2Mi: 1Gi\n      memory: 2Gi\n"
                                       + ("    launcher: {memory: 2Gi}\n" if role == "worker" else "")), "error",
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
    # a launcher without the cpu or memory its workers state (validate.check_launcher_resources)
    check("launcher-without-resources", """
          »resources:
            worker: {cpu: 4, memory: 8Gi}
          """, ("memory: 8Gi}", "memory: 8Gi}\n    launcher: {cpu: 1, memory: 2Gi}"), "warning",
          "spec.resources.launcher: the workers state cpu and memory but the launcher does not"),
    check("launcher-without-memory", """
          resources:
            worker: {cpu: 4, memory: 8Gi}
            »launcher: {cpu: 1}
          """, ("launcher: {cpu: 1}", "launcher: {cpu: 1, memory: 2Gi}"), "warning",
          "spec.resources.launcher: the workers state memory but the launcher does not"),
    check("launcher-without-resources-in-a-render", """
          »resources:
            worker: {memory: 8Gi}
          """, ("memory: 8Gi}", "memory: 8Gi}\n    launcher: {memory: 2Gi}"), "warning",
          "spec.resources.launcher", args=("render", "--stdout", "--target", "jobset")),
]


@pytest.mark.parametrize("case", CHECKS)
def test_check_triggers_at_the_offending_key_or_value(cli_job, case):
    assert_check_triggers(cli_job, case)


@pytest.mark.parametrize("case", CHECKS)
def test_check_stays_quiet_on_a_near_identical_blueprint(cli_job, case):
    assert_check_stays_quiet(cli_job, case)


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


def _pod_specs(obj):
    """Every pod spec in a rendered object, however deep its kind holds it (a Job's template, an
    MPIJob's replica specs, a JobSet's replicated Jobs, a TrainingRuntime's JobSet template)."""
    if isinstance(obj, dict):
        if isinstance(obj.get("containers"), list):
            yield obj
        for value in obj.values():
            yield from _pod_specs(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _pod_specs(value)


@pytest.mark.parametrize("target", ["static", "mpijob", "jobset", "trainjob"])
def test_the_launcher_warning_says_what_the_rendered_pods_are(cli_job, target):
    """The warning's claim, read from the objects each target renders rather than from the
    blueprint: with it, the rendered pod specs hold a container with a memory limit and one
    without (a namespace whose ResourceQuota covers memory refuses the second: "If the quota has
    a value specified for requests.cpu or requests.memory, then it requires that every incoming
    container makes an explicit request for those resources", kubernetes.io/docs/concepts/policy/
    resource-quotas/; requests default to limits); with the launcher's memory given as it asks,
    every container of every rendered pod states its memory, and nothing is said."""
    bad = blueprint_yaml("resources:\n  worker: {cpu: 4, memory: 8Gi}\n")
    good = bad.replace("memory: 8Gi}", "memory: 8Gi}\n    launcher: {cpu: 1, memory: 2Gi}")
    for text, warned in ((bad, True), (good, False)):
        done = cli_job(text, "render", "--stdout", "--target", target)
        assert done.returncode == 0, done.stderr
        assert [d[3].startswith("spec.resources.launcher: ") for d in diagnostics(done)] == ([True] if warned else [])
        containers = [c for o in yaml.safe_load_all(done.stdout) for pod in _pod_specs(o) for c in pod["containers"]]
        stating = {"memory" in c.get("resources", {}).get("limits", {}) for c in containers}
        assert stating == ({True, False} if warned else {True}), containers


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
