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


# The helper image a user names moves as a blueprint's image does (mpigen.project.helper_image):
# Kubernetes pulls one without a tag or digest as `:latest` (kubernetes pkg/kubelet/images
# image_manager.go applyDefaultImageTag), and `latest` is repointed by every push; a digest pins
# it whatever its tag. (image, what the warning says, or None for none)
HELPER_IMAGES = [
    ("registry.example.com/kd", "has no tag or digest, so Kubernetes pulls 'registry.example.com/kd:latest'"),
    ("registry.example.com:5000/kd", "has no tag or digest"),  # a registry's port is no tag
    ("mpioperator/kubectl-delivery:latest", "is the tag latest, which moves"),
    ("registry.example.com/kd:v0.3.0", None),
    (f"registry.example.com/kd@sha256:{F64}", None),
    (f"mpioperator/kubectl-delivery:latest@sha256:{F64}", None),  # the digest is what is pulled
]


@pytest.mark.parametrize("image, says", HELPER_IMAGES, ids=[image for image, _ in HELPER_IMAGES])
def test_a_moving_helper_image_in_mpigen_yaml_is_a_warning_at_its_value(tmp_path, image, says):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", f'apiVersion: mpigen.dev/v1alpha1\nkind: Config\nkubectlDeliveryImage: "{image}"\n')
    done = run_mpigen("render", "--stdout", cwd=tmp_path)
    stderr = done.stderr.decode()
    assert done.returncode == 0 and b"kind: Job" in done.stdout, stderr
    if says is None:
        assert stderr == "", stderr
    else:
        where = "mpigen.yaml:%d:%d" % pos(text, f'"{image}"')
        assert stderr.splitlines() == [stderr.splitlines()[0]], stderr
        assert stderr.startswith(f"{where}: warning: kubectlDeliveryImage: {image!r} ") and says in stderr, stderr


@pytest.mark.parametrize("image, says", HELPER_IMAGES, ids=[image for image, _ in HELPER_IMAGES])
def test_a_moving_helper_image_flag_is_a_warning_naming_the_flag(tmp_path, image, says):
    write(tmp_path / "bp" / "job.yaml", blueprint())
    done = run_mpigen("render", "bp", "--stdout", "--kubectl-delivery-image", image, cwd=tmp_path)
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    if says is None:
        assert stderr == "", stderr
    else:
        assert stderr.splitlines() == [stderr.splitlines()[0]], stderr
        assert stderr.startswith(f"warning: --kubectl-delivery-image: {image!r} ") and says in stderr, stderr


def test_the_flag_wins_over_mpigen_yaml_and_only_its_image_is_judged(tmp_path):
    """The image a run writes is the flag's: a pinned flag silences mpigen.yaml's moving image."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nkubectlDeliveryImage: kd\n")
    done = run_mpigen("render", "--stdout", "--kubectl-delivery-image", "registry.example.com/kd:1", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
