"""Image references (issue 15, defect 11): spec.image and --kubectl-delivery-image follow the
grammar of github.com/distribution/reference (the grammar itself: tests/unit/kube/test_image.py).
"""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import pos, run_mpigen, write
from tests.support.kubernetes_names import F64, blueprint, one_error


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
