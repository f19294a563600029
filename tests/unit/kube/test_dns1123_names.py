"""IsDNS1123Label and IsDNS1123Subdomain (k8s.io/apimachinery pkg/util/validation/validation.go)
as mpigen.kube.names has them: Go's regexp reads `$` as the end of the text, so a name with a
trailing line break is refused, as Python's re.match would have let it through."""

from __future__ import annotations

import pytest

from mpigen.check.dns_config import is_ip
from mpigen.kube.names import is_dns1123_label, is_dns1123_subdomain


@pytest.mark.parametrize("name, label, subdomain", [
    ("gpu", True, True), ("a-1", True, True), ("a.b", False, True), ("a" * 63, True, True),
    ("a" * 64, False, True), ("a" * 254, False, False), ("gpu\n", False, False), ("Gpu", False, False),
    ("-a", False, False), ("", False, False), (None, False, False)])
def test_dns1123_names_as_apimachinery_reads_them(name, label, subdomain):
    assert (is_dns1123_label(name), is_dns1123_subdomain(name)) == (label, subdomain)


@pytest.mark.parametrize("value, ip", [("10.0.0.1", True), ("010.0.0.1", True), ("10.0.0.300", False),
                                       ("10.0.0.1\n", False), ("\u0661.2.3.4", False), ("fe80::1", True),
                                       ("fe80::1%eth0", False)])
def test_an_ip_as_netutils_parse_ip_sloppy_reads_it(value, ip):
    assert is_ip(value) is ip
