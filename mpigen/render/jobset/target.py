"""Target `jobset`: per job, a ConfigMap (hostfile and SSH files), the key generator's RBAC
(default key strategy), the PodGroup of a gang scheduler, and one JobSet (mpigen.render.jobset.jobset), which needs no
controller but JobSet's. Under a GitOps profile each run is objects of its own, as on the
other targets (mpigen.render.parts.gitops: a JobSet's replicated jobs are immutable); the
configuration goes in Argo CD's wave -1 and the JobSet in wave 0, and JobSet itself starts
the launcher once the workers are ready, so Flux applies it in one step. A finished run's pods are
gone (JobSet deletes the running workers) and nothing brings them back; `completed`
suspends the JobSet, so a run still going stops and releases its pods too."""

from __future__ import annotations

from mpigen.compile.mpijob import MPIJob
from mpigen.kube.labels import ARGOCD_SYNC_WAVE
from mpigen.render.parts import gitops
from mpigen.render.parts.additions import Additions, addition_objects
from mpigen.render.jobset import checks
from mpigen.render.jobset import kinds
from mpigen.render.jobset.configmap import new_config_map
from mpigen.render.jobset.jobset import new_jobset
from mpigen.render.jobset.keygen import keygen_objects
from mpigen.render.jobset.names import first_rank_host
from mpigen.render.jobset.watched import watched
from mpigen.render.parts.podgroup import join_group, new_pod_group
from mpigen.render.parts.stamp import stamp
from mpigen.render.target import Lifecycle, Options, Target, TargetOptions

WAVES = {"ConfigMap": "-1", "ServiceAccount": "-1", "Role": "-1", "RoleBinding": "-1", "PodGroup": "-1",
         "JobSet": "0"}
# The launcher runs as the identity; rank 0 is a pod of the JobSet's.
ADDITIONS = Additions(launcher_service_account=False, first_rank_host=first_rank_host)


def jobset_objects(job: MPIJob, wait_for_workers: bool) -> list[dict]:
    """In the order they are needed: the configuration, the generator's RBAC, the JobSet; then
    mpigen's additions (mpigen.render.parts.additions)."""
    key_job = job.source.ssh.keySecret is None
    objects = [new_config_map(job)]
    if key_job:
        objects += keygen_objects(job)
    jobset = new_jobset(job, key_job, wait_for_workers)
    if job.extensions.gang is not None:  # the workers and the launcher; the key is made before them
        objects.append(new_pod_group(job, launcher_waits=wait_for_workers))
        for replicated in jobset["spec"]["replicatedJobs"][-2:]:
            join_group(job, replicated["template"]["spec"]["template"])
    return objects + [jobset] + addition_objects(job)


def render(job: MPIJob, options: Options, lifecycle: Lifecycle) -> list[dict]:
    wait = job.source.launcher.waitForWorkers is not False  # JobSet waits unless told not to
    objects, run = gitops.run_objects(job, lifecycle, options.gitops, lambda instance, _: jobset_objects(
        instance, wait), ADDITIONS)
    for obj in objects:
        stamp(obj, job, job.metadata.name, run, templates=options.gitops == "none")
        if obj["kind"] == "JobSet":
            _finish(obj, lifecycle)
        if options.gitops == "argocd" and obj["kind"] in WAVES:
            obj["metadata"].setdefault("annotations", {})[ARGOCD_SYNC_WAVE] = WAVES[obj["kind"]]
    return objects


def _finish(jobset: dict, lifecycle: Lifecycle) -> None:
    """What the blueprint's state and TTL say, which are not part of the run."""
    if lifecycle.ttl_seconds_after_finished is not None:
        jobset["spec"]["ttlSecondsAfterFinished"] = lifecycle.ttl_seconds_after_finished
    if lifecycle.state == "completed":
        jobset["spec"]["suspend"] = True


JOBSET = Target(name="jobset", render=render, checks=checks.checks, reserved=checks.RESERVED,
                health_checks=("docs/argocd/jobset-health.yaml", "docs/flux/jobset-health.yaml"), kinds=kinds.KINDS,
                # Kueue admits a JobSet as one workload (Kueue v0.19.2 pkg/controller/jobs/jobset/jobset_controller.go)
                options=TargetOptions("one JobSet per job, ranks started over SSH (needs JobSet)",
                                      who_runs="JobSet, with Kueue admitting each job as one workload: the choice "
                                               "for Kueue and Argo CD"),
                watched=watched)
