"""A hint toward spec.ssh.keygenImage: with the default key strategy, the jobset target's
ssh-keygen step runs in the job's image unless keygenImage names another
(mpigen.render.jobset.keygen), so a GPU framework image, often 10 to 20 GB
(nvcr.io/nvidia/pytorch:23.03-py3 is about 20 GB: d4l3k/torchdrive#4; NGC's PyTorch 22 GB
against pytorch/pytorch's 4 GB: hiyouga/LlamaFactory#4974), is pulled whole onto a node for
one command that takes a few milliseconds, before any worker starts.

What counts as a GPU image is read from its name alone, as a reviewer would:
- NVIDIA's NGC framework images, `nvcr.io/nvidia/...` (PyTorch, TensorFlow, NeMo, ...);
- the CUDA images, `nvidia/cuda` on Docker Hub;
- a tag with a word that starts with `cuda` or is `gpu`, words being what `-`, `_` and `.`
  separate: `pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime`, `tensorflow/tensorflow:2.16.1-gpu`.
Anything else (a registry mirror under another name, a CPU image) is left alone: a hint that
cannot be sure stays quiet."""

from __future__ import annotations

import re

from mpigen.errors import Diagnostic, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.image import image_problem, split_image
from mpigen.load.document import Document

IMAGE = ("spec", "image")
NGC = "nvcr.io/nvidia/"
CUDA_REPOSITORIES = ("nvidia/cuda", "docker.io/nvidia/cuda", "index.docker.io/nvidia/cuda")
_WORD = re.compile(r"[-_.]")
SMALL_IMAGE = "mpioperator/base"  # kubeflow/mpi-operator build/base/Dockerfile: Debian, OpenSSH, mpiuser


def looks_like_gpu_image(image: str) -> bool:
    """Whether the image's name says it is a GPU framework or CUDA image (the module's rule)."""
    if image_problem(image) is not None:
        return False
    repository, tag, _ = split_image(image)
    if repository.startswith(NGC) or repository in CUDA_REPOSITORIES:
        return True
    words = _WORD.split(tag.lower()) if tag else []
    return any(word.startswith("cuda") or word == "gpu" for word in words)


def keygen_pull_hint(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    """A warning at spec.image when the keygen step would pull it and it looks like a GPU image."""
    ssh = blueprint.spec.ssh
    if ssh.keySecret is not None or ssh.keygenImage is not None or not looks_like_gpu_image(blueprint.spec.image):
        return []
    return [warning(doc.value_mark(IMAGE),
                    f"spec.image: {blueprint.spec.image!r} looks like a GPU image, often 10 to 20 GB, and with "
                    "--target jobset the ssh-keygen step that makes the run's key pulls it whole onto a node for a "
                    "command of a few milliseconds, before any worker starts; set spec.ssh.keygenImage to a small "
                    f"image with a POSIX shell, ssh-keygen, base64 and the job's user (such as {SMALL_IMAGE}, "
                    "docs/ssh.md)")]
