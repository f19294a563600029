"""What JobSet refuses to change in a JobSet (jobset.x-k8s.io/v1alpha2, as of JobSet v0.12.0):
the webhook's ValidateUpdate (pkg/webhooks/jobset_webhook.go) keeps spec.replicatedJobs and
spec.managedBy, except, while the old or the new JobSet is suspended, what Kueue changes in a
replicated job's pod template (its labels and annotations, nodeSelector, tolerations and
schedulingGates); CEL rules `self == oldSelf` (api/jobset/v1alpha2/jobset_types.go) keep
network, successPolicy, failurePolicy, startupPolicy and volumeClaimPolicies. suspend,
ttlSecondsAfterFinished and coordinator may change."""

from __future__ import annotations

from mpigen.kube.values import by_name, equal, get, mapping

IMMUTABLE = ("network", "successPolicy", "failurePolicy", "startupPolicy", "managedBy", "volumeClaimPolicies")
SUSPENDED_POD_FIELDS = ("nodeSelector", "tolerations", "schedulingGates")


def immutable_changes(old: dict, new: dict) -> list[str]:
    """The immutable paths that change: each replicated job by name (the whole list when jobs
    are added, removed or reordered), then the CEL-immutable fields."""
    old_spec, new_spec = mapping(old.get("spec")), mapping(new.get("spec"))
    suspended = old_spec.get("suspend") is True or new_spec.get("suspend") is True
    old_jobs, new_jobs = by_name(old_spec.get("replicatedJobs")), by_name(new_spec.get("replicatedJobs"))
    if old_jobs is None or new_jobs is None or list(old_jobs) != list(new_jobs):
        paths = [] if equal(get(old_spec, "replicatedJobs"), get(new_spec, "replicatedJobs")) \
            else ["spec.replicatedJobs"]
    else:
        paths = [f"spec.replicatedJobs[{name}]" for name in old_jobs
                 if not equal(_munged(old_jobs[name], suspended), _munged(new_jobs[name], suspended))]
    return paths + [f"spec.{name}" for name in IMMUTABLE if not equal(get(old_spec, name), get(new_spec, name))]


def _munged(job: dict, suspended: bool) -> dict:
    """A replicated job without what the webhook lets change: with the JobSet suspended,
    its pod template's labels, annotations, nodeSelector, tolerations and schedulingGates."""
    if not suspended or not isinstance(get(job, "template", "spec", "template"), dict):
        return job
    pod = dict(job["template"]["spec"]["template"])
    pod["metadata"] = {k: v for k, v in mapping(pod.get("metadata")).items() if k not in ("labels", "annotations")}
    pod["spec"] = {k: v for k, v in mapping(pod.get("spec")).items() if k not in SUSPENDED_POD_FIELDS}
    return {**job, "template": {**job["template"], "spec": {**job["template"]["spec"], "template": pod}}}
