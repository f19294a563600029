"""Image references (issue 15, defect 11): spec.image and --kubectl-delivery-image follow the
grammar of github.com/distribution/reference (regexp.go and the cases of reference_test.go,
TestReferenceParse).
"""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import pos, run_mpigen, write
from tests.support.kubernetes_names import blueprint, one_error


# --- defect 11: image references -------------------------------------------------------

F64 = "f" * 64
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


@pytest.mark.parametrize("image", ["x y", "registry.example.com/kd:1\nname: injected", "Kubectl/Delivery", ""])
def test_kubectl_delivery_image_flag_must_be_an_image_reference(tmp_path, image):
    write(tmp_path / "bp" / "job.yaml", blueprint())
    line = one_error(run_mpigen("render", "bp", "--stdout", "--kubectl-delivery-image", image, cwd=tmp_path))
    assert line.startswith(f"error: --kubectl-delivery-image: {image!r} is not an image reference: "), line


def test_a_valid_kubectl_delivery_image_reaches_the_launcher(tmp_path):
    write(tmp_path / "bp" / "job.yaml", blueprint())
    image = f"registry.example.com:5000/mpi/kubectl-delivery:v0.3.0@sha256:{F64}"
    done = run_mpigen("render", "bp", "--stdout", "--kubectl-delivery-image", image, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    job = next(d for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "Job")
    assert [c["image"] for c in job["spec"]["template"]["spec"]["initContainers"]] == [image]


def test_kubectl_delivery_image_in_mpigen_yaml_is_checked_at_its_line(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", 'apiVersion: mpigen.dev/v1alpha1\nkind: Config\n'
                                           'kubectlDeliveryImage: "kd:1 --privileged"\n')
    line = one_error(run_mpigen("render", "--stdout", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: kubectlDeliveryImage: " % pos(text, '"kd:1')), line


def test_spec_image_is_checked_by_the_same_grammar(tmp_path):
    text = write(tmp_path / "bp" / "job.yaml", blueprint(image="Example.com/Train:1"))
    line = one_error(run_mpigen("validate", "bp", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.image: " % pos(text, '"Example.com')), line
    assert "is not an image reference" in line
