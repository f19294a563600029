"""What `mpigen status` says of one job: what Git says of it, what the cluster has of it, and
the one answer that joins them.

The reading of the cluster (mpigen.status.cluster) fills a `Seen` per job from one list call
per kind and namespace; the judging (mpigen.status.judge) turns a `Wanted` and its `Seen` into
a `Verdict`, from the statuses the controllers write (each rule cites the controller's code);
the command prints verdicts one line each, or as JSON (the fields of `Verdict`, documented in
docs/cli.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.render.watched import Watched

# A job's answer, in the order of its life. `stale` is not a state: a job in any state may
# still have an older run's objects (Verdict.stale_runs).
STATES = ("missing", "pending", "queued", "held", "starting", "running", "succeeded", "failed", "stopped")
# The states in which the cluster does what Git says (exit 0 when every job is in one of them):
# a job meant to run that waits, starts or runs, one that finished, one held or stopped on purpose.
AS_GIT_SAYS = frozenset({"pending", "queued", "held", "starting", "running", "succeeded", "stopped"})


@dataclass(frozen=True)
class ObjectRef:
    """One object as mpigen rendered it for the job."""

    api_version: str
    kind: str
    name: str


@dataclass(frozen=True)
class Wanted:
    """One job as Git says it, from a render of its environment: its target, the blueprint's
    `spec.state` (Watched.state), the objects rendered for it (none for a queued job that is
    `completed`), and what its alerts would watch (the run's names, steps, restart budget,
    workers, GPUs and queue: mpigen.render.watched)."""

    environment: str
    target: str
    watched: Watched
    objects: tuple[ObjectRef, ...] = ()

    @property
    def namespace(self) -> str:
        return self.watched.namespace

    @property
    def job(self) -> str:
        return self.watched.job


@dataclass
class Seen:
    """What the cluster has of one job: every object of the kinds read that belongs to it
    (labelled `mpigen.dev/job=<job>`, or owned by one that is: a JobSet's child Jobs, the pods,
    Kueue's Workloads), as the API server returned them, and Kueue's pending positions of its
    Workloads when the visibility API answered (Workload name -> position in its LocalQueue)."""

    objects: list[dict] = field(default_factory=list)
    positions: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """The answer for one job. `state` is one of STATES; `detail` says it in words (the step,
    the reason, the queue); the other fields are those words as data (None: not known, or not
    this state's)."""

    state: str
    detail: str = ""
    run: str | None = None               # the name of the run the cluster has (Watched.name when it is Git's)
    stale_runs: tuple[str, ...] = ()     # older runs' objects still in the cluster
    step: str | None = None              # starting: keygen, workers or launcher
    ready: int | None = None             # pods Ready (workers while starting, ranks while running)
    expected: int | None = None          # of how many
    restarts: int | None = None          # restarts used
    restart_budget: int | None = None    # of how many
    gpus: int | None = None              # accelerators the running pods hold
    queue: str | None = None             # queued or held: the LocalQueue
    position: int | None = None          # queued: the position in it (Kueue's visibility API)
    reason: str | None = None            # queued (inadmissible), failed: the controller's reason and message
    failing_pod: str | None = None       # failed: the pod that failed

    @property
    def as_git_says(self) -> bool:
        return self.state in AS_GIT_SAYS
