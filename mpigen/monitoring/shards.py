"""An environment-wide object split into shards of its jobs, so that each shard stays under what
the cluster takes of its kind (the environment's PrometheusRule, mpigen.monitoring.prometheus_rule, and its
Grafana dashboard, mpigen.monitoring.dashboard).

While the whole object fits, it is the one object, as before sharding existed. Otherwise the jobs
go to K shards, K the smallest power of two for which every shard fits: a job's shard is the
sha256 of `<namespace>/<job>` (the blueprint's name, never its run's) modulo K, so that adding or
removing a job changes one shard while K holds, and doubling K splits shard i of K into shards i
and i + K of 2K alone. A shard is named `<name>-<i>-of-<K>` (i from 1, as many digits as K).
Every shard is written, an empty one too, so that the names stay as K holds.

"Fits" is every limit of the kind at SAFE_FRACTION of its value: the sizes counted are lower
bounds of what the API server and the operator count (mpigen.kube.sizes), and a shard keeps room
for its jobs to grow (a longer run name, one more alert) before K must double. A job that fits
no shard alone is an error at its blueprint, never a job left out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable

from mpigen.errors import NOWHERE, Diagnostic, InputError, Mark, error
from mpigen.render.watched import Watched

# A quarter of each limit kept free (prometheus-operator keeps half of a ConfigMap's for the same
# uncertainty: v0.93.0 pkg/operator/rules.go MaxConfigMapDataSize, "lets leave a large buffer").
SAFE_FRACTION = 3 / 4
MAX_SHARDS = 1 << 16  # past it a shard of many jobs would still not fit: something else is wrong


@dataclass(frozen=True)
class Limit:
    """One limit an object of the kind must stay under: what counts it, and its value in bytes."""

    what: str  # who refuses the object past it, for the error
    size: Callable[[dict], int]
    limit: int

    def fits(self, obj: dict) -> bool:
        return self.size(obj) <= self.limit * SAFE_FRACTION


# The object of these jobs as shard i (from 1) of k; k == 1: the environment's one object as it
# always was.
Build = Callable[[list[Watched], int, int], dict]


def shard_of(watched: Watched, k: int) -> int:
    """The shard (from 0) of a job among k: the sha256 of its namespace and name, modulo k."""
    digest = hashlib.sha256(f"{watched.namespace}/{watched.job}".encode()).digest()
    return int.from_bytes(digest, "big") % k


def shard_name(name: str, i: int, k: int) -> str:
    """`<name>-<i>-of-<k>`, i with as many digits as k (the name alone when k is 1), so that the
    shards list in order."""
    return name if k == 1 else f"{name}-{i:0{len(str(k))}d}-of-{k}"


def sharded(watched: list[Watched], build: Build, limits: tuple[Limit, ...]) -> list[dict]:
    """The object of all the jobs if it fits every limit, else its shards (in order), each of
    which does; a job too large alone raises InputError at its blueprint."""
    jobs = sorted(watched, key=lambda w: (w.namespace, w.job))
    whole = build(jobs, 1, 1)
    if all(limit.fits(whole) for limit in limits):
        return [whole]
    # K shards hold at least the whole's bytes of each count between them: no fewer can fit.
    k = 2
    while any(k * limit.limit * SAFE_FRACTION < limit.size(whole) for limit in limits):
        k *= 2
    while True:
        parts = [[] for _ in range(k)]
        for one in jobs:
            parts[shard_of(one, k)].append(one)
        shards = [build(part, i + 1, k) for i, part in enumerate(parts)]
        over = [(part, next(limit for limit in limits if not limit.fits(obj)), obj)
                for part, obj in zip(parts, shards) if not all(limit.fits(obj) for limit in limits)]
        if not over:
            return shards
        alone = [_too_large(part[0], limit, obj) for part, limit, obj in over if len(part) == 1]
        if alone or k >= MAX_SHARDS:
            raise InputError(alone or [_too_large(over[0][0][0], over[0][1], over[0][2])])
        k *= 2


def _too_large(watched: Watched, limit: Limit, obj: dict) -> Diagnostic:
    return error(Mark(watched.blueprint) if watched.blueprint else NOWHERE,
                 f"{watched.namespace}/{watched.job}: a {obj['kind']} of this job alone takes {limit.size(obj):,} "
                 f"bytes, over {SAFE_FRACTION:.0%} of the {limit.limit:,} bytes {limit.what} takes, so that no "
                 "shard of the environment's can hold it (docs/monitoring.md section 8); shorten the job's names")
