"""The hint toward spec.ssh.keygenImage (mpigen.render.jobset.keygen_hint): on target jobset,
without keySecret or keygenImage, the keygen step runs ssh-keygen in the job's image, and a GPU
framework image is often 10 to 20 GB to pull (nvcr.io/nvidia/pytorch:23.03-py3 about 20 GB,
d4l3k/torchdrive#4; NGC's PyTorch 22 GB against pytorch/pytorch's 4 GB,
hiyouga/LlamaFactory#4974). The images are the names these projects publish: NGC's
nvcr.io/nvidia/*, Docker Hub's nvidia/cuda, pytorch/pytorch's `-cudaX.Y-` tags, tensorflow's
`-gpu` tags; the CPU ones beside them stay quiet."""

from __future__ import annotations

import pytest

from tests.support.production import diagnostics

JOBSET = ("render", "--stdout", "--target", "jobset")
# (image, whether the keygen step pulling it earns the hint)
IMAGES = [
    ("nvcr.io/nvidia/pytorch:24.05-py3", True),
    ("nvcr.io/nvidia/tensorflow:24.03-tf2-py3", True),
    ("nvcr.io/nvidia/nemo:24.07", True),
    ("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04", True),
    ("docker.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04", True),
    ("pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime", True),
    ("tensorflow/tensorflow:2.16.1-gpu", True),
    ("tensorflow/tensorflow:latest-gpu-jupyter", True),
    ("registry.example.com/team/train:1.2-cuda12.1", True),
    ("tensorflow/tensorflow:2.16.1", False),
    ("pytorch/pytorch@sha256:" + "a" * 64, False),  # a digest says nothing of the image
    ("horovod/horovod-cpu:0.28.1", False),
    ("mpioperator/mpi-pi:openmpi", False),
    ("registry.example.com/gpu-team/train:1.0", False),  # the team's name, not the image's build
    ("registry.example.com/nvcr.io/nvidia/pytorch:24.05-py3", False),  # a mirror under another name
]


def job(image: str, ssh: str = "") -> str:
    return f"""apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata:
  name: job
spec:
  image: "{image}"
  workers: 2
  command: [python, train.py]
{ssh}"""


@pytest.mark.parametrize("image, hinted", IMAGES, ids=[image for image, _ in IMAGES])
def test_a_gpu_image_the_keygen_step_would_pull_earns_a_warning_at_spec_image(cli_job, image, hinted):
    done = cli_job(job(image), *JOBSET)
    assert done.returncode == 0, done.stderr
    found = diagnostics(done)
    if not hinted:
        assert found == [], done.stderr
        return
    assert [(line, column, severity) for line, column, severity, _ in found] == [(6, 10, "warning")], done.stderr
    assert found[0][3].startswith(f"spec.image: {image!r} looks like a GPU image") and \
        "spec.ssh.keygenImage" in found[0][3], done.stderr


@pytest.mark.parametrize("ssh", ["  ssh: {keygenImage: mirror.example.com/openssh-client:9.6}\n",
                                 "  ssh: {keySecret: job-ssh}\n"], ids=["keygenImage", "keySecret"])
def test_no_hint_when_the_job_s_image_makes_no_key(cli_job, ssh):
    """keygenImage runs the step elsewhere; keySecret brings a key, so no step runs."""
    done = cli_job(job("nvcr.io/nvidia/pytorch:24.05-py3", ssh), *JOBSET)
    assert done.returncode == 0 and diagnostics(done) == [], done.stderr


@pytest.mark.parametrize("target", ["static", "mpijob", "trainjob"])
def test_no_hint_on_targets_without_the_keygen_step(cli_job, target):
    done = cli_job(job("nvcr.io/nvidia/pytorch:24.05-py3"), "render", "--stdout", "--target", target)
    assert done.returncode == 0 and not [f for f in diagnostics(done) if "keygenImage" in f[3]], done.stderr
