"""Image references (issue 15, defect 11): spec.image and --kubectl-delivery-image follow the
grammar of github.com/distribution/reference (the grammar itself: tests/unit/kube/test_image.py).
"""

from __future__ import annotations

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.kubernetes_names import F64, blueprint, one_error
from tests.support.paths import ROOT
from tests.support.text import pos, write


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


# --- issue 36: an image without a tag or digest is :latest, which moves ------------------

def test_an_image_without_tag_or_digest_is_a_warning_at_its_line(tmp_path):
    """Kubernetes pulls an untagged image as ':latest', which a push repoints: the committed
    manifests would run another program tomorrow. A warning, not an error: the render goes on."""
    text = write(tmp_path / "bp" / "job.yaml", blueprint(image="example.com/train", datasets=[
        {"name": "data", "mountPath": "/data", "pvc": "data", "readOnly": False,
         "download": {"image": "amazon/aws-cli", "command": ["true"]}}]))
    done = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout
    assert done.stderr.decode().splitlines() == [
        "bp/job.yaml:%d:%d: warning: spec.image: 'example.com/train' has no tag or digest, so Kubernetes pulls "
        "'example.com/train:latest', which moves whenever the image is pushed again; pin a tag "
        "(example.com/train:1.2.3) or a digest (example.com/train@sha256:...)" % pos(text, '"example.com/train"'),
        "bp/job.yaml:%d:%d: warning: spec.datasets[0].download.image: 'amazon/aws-cli' has no tag or digest, so "
        "Kubernetes pulls 'amazon/aws-cli:latest', which moves whenever the image is pushed again; pin a tag "
        "(amazon/aws-cli:1.2.3) or a digest (amazon/aws-cli@sha256:...)" % pos(text, '"amazon/aws-cli"')]


@pytest.mark.parametrize("image", ["example.com/train:1", "registry.example.com:5000/train:v2",
                                   f"example.com/train@sha256:{F64}", "localhost:5000/train:latest"])
def test_a_tag_or_a_digest_pins_the_image(tmp_path, image):
    """A registry's port is no tag (localhost:5000/train is untagged; with :latest it says so)."""
    write(tmp_path / "bp" / "job.yaml", blueprint(image=image))
    done = run_mpigen("validate", "bp", cwd=tmp_path)
    assert done.returncode == 0 and "warning" not in done.stderr.decode(), done.stderr


def test_a_registry_port_is_not_taken_for_a_tag(tmp_path):
    write(tmp_path / "bp" / "job.yaml", blueprint(image="localhost:5000/train"))
    assert b"'localhost:5000/train' has no tag or digest" in run_mpigen("validate", "bp", cwd=tmp_path).stderr


def test_every_example_pins_its_images():
    done = run_mpigen("validate", "--target", "jobset", cwd=ROOT)
    assert done.returncode == 0 and b"has no tag or digest" not in done.stderr, done.stderr
