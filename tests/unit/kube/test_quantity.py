"""The Kubernetes spelling mpigen suggests for a size written as people write them (issue 36):
the suggestion is a quantity Kubernetes reads, of the size the user meant (GB = 10^9 bytes,
GiB = 2^30: IEC 80000-13), and nothing is suggested for what is already a quantity."""

from __future__ import annotations

import pytest

from mpigen.kube.quantity import parse, spelled


@pytest.mark.parametrize("written, meant, spelling", [
    ("1GB", 10**9, "1G"), ("1gb", 10**9, "1G"), ("1gi", 2**30, "1Gi"), ("512MiB", 512 * 2**20, "512Mi"),
    ("512mb", 512 * 10**6, "512M"), ("2 kb", 2000, "2k"), ("2KB", 2000, "2k"), ("1.5 GB", 1.5 * 10**9, "1.5G"),
    ("4 Gi", 4 * 2**30, "4Gi"), ("1tib", 2**40, "1Ti"),
])
def test_a_size_as_people_write_it_gets_the_kubernetes_spelling_of_the_same_size(written, meant, spelling):
    assert spelled(written) == spelling and parse(spelling) == meant


@pytest.mark.parametrize("text", ["1Gi", "1G", "500m", "1m", "1e3", "abc", "1xb", "1 Gix", "-1GB", ""])
def test_no_suggestion_for_a_quantity_or_what_is_no_size(text):
    assert spelled(text) is None
