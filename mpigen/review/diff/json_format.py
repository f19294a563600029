"""The JSON report of `mpigen diff`, for programs: every job with its objects and field
changes (an absent side is null), GPUs, slots, workers, run effects and immutable changes, the
blueprint edits an overlay makes moot, the jobs whose run going on restarts (with why), and a
summary of the counts. Keys sorted, two-space indent."""

from __future__ import annotations

import json
from typing import Any

from mpigen.kube.values import ABSENT
from mpigen.review.diff.model import Finding, JobDiff, ObjectKey


def _object_json(key: ObjectKey, path: str) -> dict:
    return {"apiVersion": key.api_version, "kind": key.kind, "namespace": key.namespace, "name": key.name,
            "file": path}


def _none(value: Any) -> Any:
    return None if value is ABSENT else value


def _job_json(job: JobDiff) -> dict:
    return {
        "environment": job.environment, "namespace": job.namespace, "job": job.job,
        "added": [_object_json(m.key, m.path) for m in job.added],
        "removed": [_object_json(m.key, m.path) for m in job.removed],
        "changed": [{**_object_json(c.key, c.path),
                     "fields": [{"path": f.path, "op": f.op, "old": _none(f.old), "new": _none(f.new)}
                                for f in c.fields]} for c in job.changed],
        "gpus": {"old": job.gpus[0], "new": job.gpus[1]},
        "slots": {"old": job.slots[0], "new": job.slots[1]},
        "workers": {"old": job.workers[0], "new": job.workers[1]},
        "newRun": job.new_run, "endsRun": job.ends_run, "restartsWorkers": job.restarts_workers,
        "immutable": [_finding_json(f) for f in job.immutable],
    }


def _finding_json(finding: Finding) -> dict:
    """The object, path and message; for a change a blueprint field makes, that field and where it is."""
    out = {"object": str(finding.key), "path": finding.path, "message": finding.said()}
    if finding.field:
        out["field"] = finding.field
        out["blueprint"] = str(finding.blueprint) if finding.blueprint is not None else None
    return out


def format_json(report) -> str:
    jobs = [_job_json(job) for job in report.jobs]
    summary = {"jobs": len(jobs), "immutable": sum(len(job["immutable"]) for job in jobs)}
    for kind in ("added", "removed", "changed"):
        summary[kind] = sum(len(job[kind]) for job in jobs)
    overridden = [{"environment": note.environment, "blueprint": note.blueprint, "field": note.field,
                   "old": _none(note.old), "new": _none(note.new), "overlay": str(note.overlay),
                   "value": _none(note.value)} for note in report.overridden]
    upgrades = [{"environment": up.environment, "key": up.key, "old": up.old, "new": up.new, "at": str(up.mark),
                 "objects": [{"object": str(o.key), "said": o.said, "warning": o.warning} for o in up.objects]}
                for up in report.upgrades]
    restarts = [{"environment": r.environment, "namespace": r.namespace, "job": r.job, "why": r.why}
                for r in report.restarts]
    data = {"old": report.old_label, "new": report.new_label, "differs": report.differs(),
            "immutable": report.immutable(), "summary": summary, "jobs": jobs, "overridden": overridden,
            "upgrades": upgrades, "restarts": restarts}
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
