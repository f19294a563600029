"""Images that move: an image the blueprint names without a tag or a digest is pulled as
`:latest`, which a registry repoints whenever someone pushes, so the same committed
manifests run a different program from one day to the next (GitOps reviews the manifests,
not the registry). A warning at the image's line; `:TAG` or `@sha256:...` silences it."""

from __future__ import annotations

from mpigen.errors import Diagnostic, warning
from mpigen.kube.image import image_problem, split_image
from mpigen.load.document import Loc
from mpigen.validate.fields import Fields

IMAGE = ("spec", "image")
SSH_KUBECTL_IMAGE, SSH_KEYGEN_IMAGE = ("spec", "ssh", "kubectlImage"), ("spec", "ssh", "keygenImage")


def check_image_tags(f: Fields, out: list[Diagnostic]) -> None:
    """spec.image, each dataset's download image, spec.ssh.kubectlImage and keygenImage: where
    the blueprint writes them."""
    datasets = f.get(("spec", "datasets"), []) if f.ok(("spec", "datasets")) else []
    downloads = [("spec", "datasets", index, "download", "image") for index in range(len(datasets))
                 if isinstance(datasets, list)]
    for loc in (IMAGE, *downloads, SSH_KUBECTL_IMAGE, SSH_KEYGEN_IMAGE):
        image = f.get(loc) if f.ok(loc) else None
        if isinstance(image, str) and not image_problem(image) and split_image(image)[1:] == (None, None):
            out.append(warning(f.doc.value_mark(loc), _moves(loc, image)))


def _moves(loc: Loc, image: str) -> str:
    field = ".".join(f"[{part}]" if isinstance(part, int) else part for part in loc).replace(".[", "[")
    return (f"{field}: {image!r} has no tag or digest, so Kubernetes pulls {image + ':latest'!r}, which moves "
            f"whenever the image is pushed again; pin a tag ({image}:1.2.3) or a digest ({image}@sha256:...)")
