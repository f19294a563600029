"""The overview a diff report opens with (markdown) or closes with (text), which no cut
leaves out: how many jobs change and in which environments, their GPUs before and after,
the changes Kubernetes refuses to apply in place, the restarts (each job whose run going on
the change stops and starts again, and why: mpigen.review.diff.restarts), and every changed
job by name.

Each line is a (label, text) pair, so that a form prints it its own way and another line
(a count of its own) slots in beside these.
"""

from __future__ import annotations

from mpigen.review.diff.model import JobDiff
from mpigen.review.diff.renames import Renames
from mpigen.review.diff.restarts import Restart, restarting


def restarted(index: int, job: JobDiff, found: Renames) -> bool:
    """Whether the change restarts the job's run: its run is renamed (deleted and created
    again under the new name), or what mpigen.review.diff.restarts counts as a restart."""
    return index in found.runs or restarting(job)


def overview(jobs: list[JobDiff], found: Renames, restarts: list[Restart], arrow: str = "->",
             limit: int = 0) -> list[tuple[str, str]]:
    """[(label, text)]: jobs (per environment), their GPUs (when they have any), immutable
    changes, the restarts with why, and the changed jobs by name, the two lists in at most
    `limit` characters together, half each (0: all; past it, `and N more`)."""
    named = [job for job in jobs if job.job]
    environments: dict[str, int] = {}
    for job in named:
        environments[job.environment] = environments.get(job.environment, 0) + 1
    where = ", ".join(f"{env}: {n}" for env, n in environments.items() if env)
    lines = [("Jobs changed", f"{len(named)}" + (f" ({where})" if where else ""))]
    old_gpus, new_gpus = sum(job.gpus[0] for job in named), sum(job.gpus[1] for job in named)
    delta = new_gpus - old_gpus
    if old_gpus or new_gpus:  # jobs without GPUs before and after: nothing to say
        lines.append(("GPUs of these jobs", f"{old_gpus} {arrow} {new_gpus} ({delta:+d})" if delta else
                      f"{new_gpus}, unchanged"))
    findings = [job for job in jobs if job.immutable]
    count = sum(len(job.immutable) for job in findings)
    lines.append(("Immutable changes", f"{count} in {_jobs(len(findings))}: Argo CD and Flux fail to sync them"
                  if count else "none"))
    half = (limit + 1) // 2  # each list its half of the limit (0 stays 0: no limit)
    said = _cut([restart.said() for restart in restarts], "; ", half)
    lines.append(("Restarts", f"{_jobs(len(restarts))} (their pods start again): {said}" if restarts else "none"))
    lines.append(("Changed jobs", _names(named, list(environments), half) or "none (other objects only)"))
    return lines


def _names(named: list[JobDiff], environments: list[str], limit: int) -> str:
    """`prod: ns/a, ns/b; dev: ns/a`, cut to `limit` characters with `and N more`."""
    parts = [(f"{env}: " if env else "", ["/".join(p for p in (j.namespace, j.job) if p)
                                          for j in named if j.environment == env]) for env in environments]
    text = "; ".join(head + ", ".join(jobs) for head, jobs in parts)
    if not limit or len(text) <= limit:
        return text
    out, shown = "", 0
    for head, jobs in parts:
        for i, name in enumerate(jobs):
            piece = ("; " if out and i == 0 else ", " if out else "") + (head if i == 0 else "") + name
            if len(out) + len(piece) + 20 > limit:
                return f"{out} and {len(named) - shown} more"
            out, shown = out + piece, shown + 1
    return out


def _cut(items: list[str], sep: str, limit: int) -> str:
    """The items joined, cut to `limit` characters with `and N more` (0: all)."""
    text = sep.join(items)
    if not limit or len(text) <= limit:
        return text
    out = ""
    for shown, item in enumerate(items):
        if len(out) + len(sep) + len(item) + 20 > limit:
            return f"{out} and {len(items) - shown} more"
        out += (sep if out else "") + item
    return out


def _jobs(n: int) -> str:
    return f"{n} job{'' if n == 1 else 's'}"
