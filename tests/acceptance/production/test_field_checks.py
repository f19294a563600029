"""The production checks of names and references: the names and paths mpigen uses, dataset
sources and service account, gang scheduling, podTemplatePatch against blueprint fields,
the target's and the GitOps profile's checks; each triggered at the offending key or value
and quiet on a near-identical blueprint.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest

from tests.support.production import (ARGOCD, DOWNLOAD, FLUX, STATIC, V1, V2BETA1, VALIDATE, assert_check_stays_quiet,
                                      assert_check_triggers, blueprint_yaml, check, diagnostics)


CHECKS = [
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
    # gang scheduling (mpigen.validate.gang.check_gang)
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
      for key, value in (("affinity", "{podAffinity: {}}"), ("dnsPolicy", "Default"))],
    # A patch alone cannot put the workers on the node's network (mpigen.check.pod_checks):
    # the one change is the patch's, whose field the blueprint's now writes alone.
    check("patch-worker-hostNetwork-and-host-network", """
          network:
            hostNetwork: true
          podTemplatePatch:
            worker:
              pod:
                »hostNetwork: true
          """, ("pod:\n        hostNetwork: true", "pod:\n        hostIPC: false"), "error", "spec.podTemplatePatch.worker.pod.hostNetwork"),
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
          """, ("gang:\n      scheduler: volcano", "multiKueue: false"), "error",
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
    assert_check_triggers(cli_job, case)


@pytest.mark.parametrize("case", CHECKS)
def test_check_stays_quiet_on_a_near_identical_blueprint(cli_job, case):
    assert_check_stays_quiet(cli_job, case)


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
