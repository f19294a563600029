"""mpigen.kube.prometheus_duration against prometheus/common v0.70.1 model/time_test.go: the
inputs TestParseDuration parses and those TestParseBadDuration refuses, copied from there."""

from __future__ import annotations

import pytest

from mpigen.kube.prometheus_duration import duration_problem

# TestParseDuration's inputs (all taken).
TAKEN = ("0", "0w", "0s", "324ms", "3s", "5m", "1h", "4d", "4d1h", "14d", "3w", "3w2d1h", "10y")
# TestParseBadDuration's (all refused).
REFUSED = ("1", "1y1m1d", "1.5d", "d", "294y", "200y10400w", "107675d", "2584200h", "")


@pytest.mark.parametrize("text", TAKEN)
def test_what_prometheus_takes_is_taken(text):
    assert duration_problem(text) is None


@pytest.mark.parametrize("text", REFUSED)
def test_what_prometheus_refuses_is_refused(text):
    assert duration_problem(text)


def test_the_bound_is_an_int64_of_nanoseconds():
    assert duration_problem("292y") is None  # 9.21e18 ns
    assert duration_problem("293y") == "duration out of range"
    assert duration_problem("") == "empty duration string"
