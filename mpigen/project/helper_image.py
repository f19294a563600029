"""The static target's helper image, when the user names it: the image of every launcher's
kubectl-delivery init container, from --kubectl-delivery-image or, without the flag,
mpigen.yaml's kubectlDeliveryImage. It moves as the blueprints' images do (mpigen.validate.images):
without a tag or a digest Kubernetes pulls `:latest`, and the tag `latest` itself is repointed
by every push, so the same committed manifests run another kubectl-delivery from one day to
the next. A warning at the mpigen.yaml line, or naming the flag; a digest silences it. mpigen's
own default is documented in docs/targets.md (no pinned tag of the image the static output
needs exists)."""

from __future__ import annotations

from mpigen.errors import NOWHERE, Diagnostic, warning
from mpigen.project.config import Config
from mpigen.kube.image import image_problem, split_image
from mpigen.validate.images import moving_image

FLAG, CONFIG_KEY = "--kubectl-delivery-image", "kubectlDeliveryImage"


def helper_image_warnings(target_flags: dict, config: Config | None) -> list[Diagnostic]:
    """A warning for the helper image the run is given, when it moves: the flag's (which wins)
    with no position, else mpigen.yaml's at its value."""
    flagged = target_flags.get(FLAG)
    if flagged is not None:
        message = _moves(FLAG, flagged)
        return [warning(NOWHERE, message)] if message else []
    image = getattr(config.model, CONFIG_KEY, None) if config is not None else None
    message = _moves(CONFIG_KEY, image) if image is not None else None
    return [warning(config.doc.value_mark((CONFIG_KEY,)), message)] if message else []


def _moves(named: str, image: object) -> str | None:
    """Why the image moves, or None (a pinned one, or no image reference: that is an error of its own)."""
    if not isinstance(image, str) or image_problem(image) is not None:
        return None
    repository, tag, digest = split_image(image)
    if digest is not None:
        return None
    if tag is None:
        return moving_image(named, image)
    if tag == "latest":
        return (f"{named}: {image!r} is the tag latest, which moves whenever the image is pushed again; pin a "
                f"digest ({repository}@sha256:...) or a tag that is never pushed again")
    return None
