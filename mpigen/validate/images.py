"""Images that move: an image the blueprint names without a tag or a digest is pulled as
`:latest`, which a registry repoints whenever someone pushes, so the same committed
manifests run a different program from one day to the next (GitOps reviews the manifests,
not the registry). A warning at the image's line; `:TAG` or `@sha256:...` silences it.

The images of podTemplatePatch's init containers, which no blueprint field types, are read
as the kubelet reads an image (mpigen.kube.image): one it cannot parse leaves the pod in
InvalidImageName (kubernetes pkg/kubelet/images/image_manager.go EnsureImageExists:
applyDefaultImageTag -> reference.ParseNormalizedNamed, ErrInvalidImageName), an error at
its line (their tags are the user's business: the patch is the escape hatch)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error, warning
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
            out.append(warning(f.doc.value_mark(loc), moving_image(_field(loc), image)))


def check_patch_images(f: Fields, out: list[Diagnostic]) -> None:
    """The image of each init container a role's podTemplatePatch writes, where it is no reference."""
    for role in ("launcher", "worker"):
        inits = f.get(("spec", "podTemplatePatch", role, "pod", "initContainers"))
        for index, container in enumerate(inits if isinstance(inits, list) else []):
            loc = ("spec", "podTemplatePatch", role, "pod", "initContainers", index, "image")
            if not isinstance(container, dict) or not f.ok(loc):
                continue
            image = container.get("image")
            if image is None or image == "":
                out.append(error(f.doc.value_mark(loc[:-1] if image is None else loc),
                                 f"{_field(loc[:-1])}: an init container needs an image, and the API server refuses "
                                 "one without (validateContainerCommon: field.Required); give it one"))
                continue
            if not isinstance(image, str):
                continue
            problem = image_problem(image)
            if problem is not None:
                out.append(error(f.doc.value_mark(loc), f"{_field(loc)}: {image!r} is no image reference the kubelet can "
                                                        f"pull, and the pod stays in InvalidImageName: {problem}"))


def _field(loc: Loc) -> str:
    return ".".join(f"[{part}]" if isinstance(part, int) else part for part in loc).replace(".[", "[")


def moving_image(named: str, image: str) -> str:
    """The warning for an image without a tag or digest (NAMED: the field or option as the
    message shows it); mpigen.project.helper_image gives it for mpigen's own helper image too."""
    return (f"{named}: {image!r} has no tag or digest, so Kubernetes pulls {image + ':latest'!r}, which moves "
            f"whenever the image is pushed again; pin a tag ({image}:1.2.3) or a digest ({image}@sha256:...)")
