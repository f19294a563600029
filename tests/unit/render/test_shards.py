"""Sharding an environment's object by its jobs (mpigen.monitoring.shards), on an object whose size is
the sum of its jobs' (a stand-in for the rule and the dashboard, which
tests/acceptance/monitoring/test_shards.py renders): the one object while it fits; else the fewest
shards (a power of two) that each fit, all of them written, an empty one too; a job's shard among
2K is its shard among K or that plus K; and a job too large alone an error at its blueprint, never
a job left out."""

from __future__ import annotations

import pytest

from mpigen.errors import InputError
from mpigen.monitoring.shards import Limit, shard_of, sharded
from mpigen.render.watched import Watched

LIMIT = Limit("the test's limit", lambda obj: sum(obj["sizes"]), 1000)  # 750 fit: SAFE_FRACTION


def job(i: int, size: int = 100) -> Watched:
    return Watched("Job", f"j{i}-abc123", "", "", namespace=f"ns{i % 3}", job=f"j{i}", blueprint=f"b/j{i}.yaml",
                   workers=size)


def build(jobs: list[Watched], i: int, k: int) -> dict:
    return {"kind": "Thing", "metadata": {"name": f"t-{i}-of-{k}"}, "jobs": [w.job for w in jobs],
            "sizes": [w.workers for w in jobs]}


def test_what_fits_is_the_one_object():
    (whole,) = sharded([job(i) for i in range(7)], build, (LIMIT,))
    assert whole["metadata"]["name"] == "t-1-of-1" and len(whole["jobs"]) == 7


def test_past_the_limit_the_fewest_shards_that_fit_each_job_once():
    jobs = [job(i) for i in range(40)]  # 4000 bytes: at least 8 shards of 750 at most
    made = sharded(jobs, build, (LIMIT,))
    k = len(made)
    assert k >= 8 and k & (k - 1) == 0
    assert [m["metadata"]["name"] for m in made] == [f"t-{i}-of-{k}" for i in range(1, k + 1)]
    assert all(sum(m["sizes"]) <= 750 for m in made)
    assert sorted(j for m in made for j in m["jobs"]) == sorted(w.job for w in jobs)
    halves = [made[i]["sizes"] + made[i + k // 2]["sizes"] for i in range(k // 2)]  # the shards of k/2
    assert max(sum(h) for h in halves) > 750


def test_a_job_stays_in_its_shard_or_moves_k_up_when_k_doubles():
    for i in range(200):
        w = job(i)
        assert all(shard_of(w, 2 * k) in (shard_of(w, k), shard_of(w, k) + k) for k in (1, 2, 4, 8, 16))


def test_an_empty_shard_is_written_too():
    """Two jobs of one shard among 2 and two among 4, each alone filling a shard: 4 shards, 2 empty."""
    pair = next((a, b) for a in range(50) for b in range(a + 1, 50)
                if shard_of(job(a), 2) == shard_of(job(b), 2) and shard_of(job(a), 4) != shard_of(job(b), 4))
    made = sharded([job(i, 700) for i in pair], build, (LIMIT,))
    assert len(made) == 4
    assert sorted(len(m["jobs"]) for m in made) == [0, 0, 1, 1]


def test_a_job_too_large_alone_is_an_error_at_its_blueprint():
    with pytest.raises(InputError) as raised:
        sharded([job(0), job(1, 800), job(2)], build, (LIMIT,))
    (diagnostic,) = raised.value.diagnostics
    assert str(diagnostic.mark) == "b/j1.yaml"
    assert "ns1/j1: a Thing of this job alone" in diagnostic.message and "the test's limit" in diagnostic.message
