"""Image references as github.com/distribution/reference parses them (regexp.go and the
cases of reference_test.go, TestReferenceParse): mpigen.kube.image accepts what it parses
and refuses what it refuses (issue 15, defect 11).
"""

from __future__ import annotations

import pytest

from tests.support.kubernetes_names import F64


# github.com/distribution/reference, reference_test.go (TestReferenceParse): inputs it parses.
VALID_IMAGES = [
    "test_com", "test.com:tag", "test.com:5000", "test.com/repo:tag", "test:5000/repo", "test:5000/repo:tag",
    f"test:5000/repo@sha256:{F64}", f"test:5000/repo:tag@sha256:{F64}", "lowercase:Uppercase",
    "a/" * 127 + "a:tag-puts-this-over-max", "sub-dom1.foo.com/bar/baz/quux:some-long-tag",
    "b.gcr.io/test.example.com/my-app:test.example.com", f"xn--7o8h.com/myimage:xn--7o8h.com@sha256:{F64}",
    "foo_bar.com:8080", "192.168.1.1:5000/repo", "[2001:db8::1]/repo", f"[2001:db8::1]:5000/repo:tag@sha256:{F64}",
    "[::1]:5000/repo", "example.com/" + "a" * 255 + ":tag",
]
# ... and inputs it refuses (with the error it gives).
INVALID_IMAGES = [
    "",  # ErrNameEmpty
    ":justtag", f"@sha256:{F64}", "aa/asdf$$^/aa", "[2001:db8::1]", "[2001:db8::1]:5000", "[2001:db8::1]:tag",
    "[fe80::1%eth0]:5000/repo",  # ErrReferenceInvalidFormat
    "repo@sha256:" + "f" * 34,  # digest.ErrDigestInvalidLength
    f"validname@invaliddigest:{F64}",  # digest.ErrDigestUnsupported
    "Uppercase:tag", "test:5000/Uppercase/lowercase:tag",  # ErrNameContainsUppercase
    "domain/" + "a" * 256 + ":tag",  # ErrNameTooLong
    "x y", "x\ny", "mpioperator/kubectl-delivery:latest\n",  # not even in the grammar's alphabet
]


@pytest.mark.parametrize("image", VALID_IMAGES)
def test_image_references_distribution_parses_are_accepted(image):
    from mpigen.kube.image import image_problem

    assert image_problem(image) is None


@pytest.mark.parametrize("image", INVALID_IMAGES)
def test_image_references_distribution_refuses_are_refused(image):
    from mpigen.kube.image import image_problem

    assert image_problem(image)
