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
# The states in which the cluster runs the job, or will without Git's next word: created and
# resumed (pending), admissible (queued: Kueue admits it once there is room), starting, running.
RUNS = frozenset({"pending", "queued", "starting", "running"})
# The states that are never as Git says, whatever it says.
NEVER_AS_GIT_SAYS = frozenset({"missing", "failed"})


def as_git_says(git_state: str, state: str) -> bool:
    """Whether the cluster does what Git says (exit 0 when every job does): for Git's
    `running`, any state but `missing`, `failed` and `stopped` (a job waits, starts, runs or
    finished); for `completed` and `held`, a job that does not run and will not (`stopped`,
    `held`, `succeeded`): one that still runs, or is queued to, is the lifecycle failure
    status is for (a stop not synced, or undone; a hold Kueue refused)."""
    if state in NEVER_AS_GIT_SAYS:
        return False
    if git_state == "running":
        return state != "stopped"
    return state not in RUNS


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
