"""The value parsers of the pod spec rules read a value as the Go code they cite reads it, at
the edges where Python's own parsers differ."""

from __future__ import annotations

import pytest

from mpigen.check.dns_config import is_ip
from mpigen.check.template_annotations import deletion_cost_ok
from mpigen.validate.kueue import max_exec_time_problem


# Kubernetes v1.30 pkg/apis/core/helper/helpers.go GetDeletionCostFromPodAnnotations:
# validFirstDigit ('-', a lone "0", or 1-9 first), then strconv.ParseInt(value, 10, 32).
@pytest.mark.parametrize("value, ok", [
    ("0", True), ("-5", True), ("-007", True), ("2147483647", True), ("-2147483648", True),
    ("+10", False), ("008", False), ("", False), ("-", False), ("2147483648", False), ("-2147483649", False),
    ("1_000", False), (" 1", False), ("１", False),
])
def test_a_deletion_cost_is_read_as_the_api_server_reads_it(value, ok):
    assert deletion_cost_ok(value) is ok


# Kubernetes v1.30 apimachinery pkg/util/validation/validation.go IsValidIP (netutils.ParseIPSloppy,
# Go 1.16's net.ParseIP): IPv4 parts with leading zeros are taken, an IPv6 zone is not.
@pytest.mark.parametrize("value, ok", [
    ("10.0.0.10", True), ("010.0.0.10", True), ("fd00::10", True), ("::ffff:10.0.0.1", True),
    ("10.0.0.256", False), ("fe80::1%eth0", False), ("dns.example.com", False), ("10.0.0", False),
])
def test_a_nameserver_is_an_ip_as_is_valid_ip_reads_it(value, ok):
    assert is_ip(value) is ok


# kubernetes-sigs/kueue 0326037 pkg/controller/jobframework/validation.go validateCreateForMaxExecTime:
# strconv.Atoi (an optional sign, decimal digits, within int64), then > 0.
@pytest.mark.parametrize("value, ok", [
    ("1", True), ("+60", True), ("0060", True), ("9223372036854775807", True),
    ("0", False), ("-1", False), ("1h", False), ("1_000", False), ("9223372036854775808", False), ("", False),
])
def test_max_exec_time_is_read_as_kueue_reads_it(value, ok):
    assert (max_exec_time_problem(value) is None) is ok
