"""Which jobs a diff restarts (mpigen.review.diff.restarts): a run whose run objects are replaced
(a kind's `run` fact on both sides of one job) or whose running workers are (`restarts_pods`);
a run that only starts or only ends is no restart; and the overview's line of them."""

from __future__ import annotations

from mpigen.review.diff.model import JobDiff
from mpigen.review.diff.restarts import REPLACED, WORKERS, Restart, restarts


def job(name: str, **effects) -> JobDiff:
    return JobDiff("prod", "ml", name, **effects)


def test_a_replaced_run_and_replaced_workers_restart_and_a_run_that_only_starts_or_ends_does_not():
    jobs = [job("a", new_run=True, ends_run=True), job("b", new_run=True), job("c", ends_run=True),
            job("d", restarts_workers=True), job("e")]
    assert [(r.job, r.why) for r in restarts(jobs)] == [("a", REPLACED), ("d", WORKERS)]




def test_the_overview_names_each_restarting_job_with_its_cause_and_cuts_a_long_list():
    from mpigen.review.diff.overview import overview
    from mpigen.review.diff.renames import renames
    jobs = [job("a", new_run=True, ends_run=True), job("b", restarts_workers=True)]
    found = [Restart("prod", "ml", "a", "its blueprint changed"), Restart("", "hpc", "b", "mpigen's output changed")]
    lines = dict(overview(jobs, renames(jobs), found))
    assert lines["Restarts"] == ("2 jobs (their pods start again): ml/a (env prod): its blueprint changed; "
                                 "hpc/b: mpigen's output changed")
    assert dict(overview(jobs, renames(jobs), []))["Restarts"] == "none"
    many = [Restart("prod", "ml", f"job-{i}", "versions.trainer v2.3 -> v2.4") for i in range(200)]
    cut = dict(overview(jobs, renames(jobs), many, limit=1000))["Restarts"]
    assert cut.startswith("200 jobs (their pods start again): ml/job-0 (env prod): versions.trainer")
    assert cut.endswith(" more") and len(cut) < 1100
