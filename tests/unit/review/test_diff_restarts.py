"""Which jobs a diff restarts (mpigen.review.diff.restarts): a run whose run objects are replaced
(a kind's `run` fact on both sides of one job) or whose running workers are (`restarts_pods`);
a run that only starts or only ends is no restart; and the summary line."""

from __future__ import annotations

from mpigen.review.diff.model import JobDiff
from mpigen.review.diff.restarts import REPLACED, WORKERS, Restart, restarts, summary_line


def job(name: str, **effects) -> JobDiff:
    return JobDiff("prod", "ml", name, **effects)


def test_a_replaced_run_and_replaced_workers_restart_and_a_run_that_only_starts_or_ends_does_not():
    jobs = [job("a", new_run=True, ends_run=True), job("b", new_run=True), job("c", ends_run=True),
            job("d", restarts_workers=True), job("e")]
    assert [(r.job, r.why) for r in restarts(jobs)] == [("a", REPLACED), ("d", WORKERS)]


def test_the_summary_line_names_each_job_with_its_cause_and_says_none_only_when_an_operator_moves():
    found = [Restart("prod", "ml", "a", "its blueprint changed"), Restart("", "hpc", "b", "mpigen's output changed")]
    assert summary_line(found, []) == ("restarts 2 jobs: ml/a (env prod): its blueprint changed; "
                                       "hpc/b: mpigen's output changed")
    assert summary_line([], []) is None
    assert summary_line([], ["an upgrade"]) == "restarts 0 jobs"
    assert summary_line(found[:1], []) == "restarts 1 job: ml/a (env prod): its blueprint changed"
