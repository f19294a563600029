"""Container image references, as github.com/distribution/reference reads them (regexp.go,
reference.go: the grammar kubelet and the container runtimes parse an image with; a
reference it refuses leaves the pod in InvalidImageName):

    reference  := name [ ":" tag ] [ "@" digest ]
    name       := [domain '/'] path-component ['/' path-component]*   (at most 255 characters)
    domain     := host [':' port-number]
    path-component := [a-z0-9]+ (separator [a-z0-9]+)*, separator := [._] | __ | [-]+
    tag        := [\\w][\\w.-]{0,127}
    digest     := algorithm ":" hex (at least 32 hex digits)

and, as Parse does beyond the grammar: the path (the name after the domain, when the first
component reads as one) is at most 255 characters, and a digest is one of go-digest's
algorithms (sha256, sha384, sha512) with its exact number of lowercase hex digits.

One definition for every image mpigen writes: spec.image, a download step's image,
--kubectl-delivery-image and mpigen.yaml's kubectlDeliveryImage.
"""

from __future__ import annotations

import re
from functools import lru_cache

_ALPHANUMERIC = "[a-z0-9]+"
_SEPARATOR = "(?:[._]|__|[-]+)"
_PATH_COMPONENT = f"{_ALPHANUMERIC}(?:{_SEPARATOR}{_ALPHANUMERIC})*"
_DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = f"(?:{_DOMAIN_COMPONENT}(?:[.]{_DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])"
_DOMAIN = f"{_HOST}(?::[0-9]+)?"
_REMOTE_NAME = f"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
NAME = f"(?:{_DOMAIN}/)?{_REMOTE_NAME}"
TAG = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
IMAGE = f"^{NAME}(?::{TAG})?(?:@{DIGEST})?$"
NAME_MAX = 255  # reference.RepositoryNameTotalLengthMax, of the path
DIGEST_HEX = {"sha256": 64, "sha384": 96, "sha512": 128}  # go-digest's algorithms, hex digits
MAX_LENGTH = 1024  # of the whole reference, as blueprints have always allowed

HELP = ("an image reference, [registry[:port]/]repository[:tag][@digest] with the repository in lowercase "
        "letters, digits and separators (. _ __ -), e.g. horovod/horovod:0.28.1")

# Leftmost-first, as Go's regexp: the first component is the domain when it reads as one.
_REFERENCE = re.compile(f"(?:({_DOMAIN})/)?({_REMOTE_NAME})(?::{TAG})?(?:@({DIGEST}))?")


@lru_cache(maxsize=4096)  # the jobs of a repository share a few images
def image_problem(text: str) -> str | None:
    """Why text is not an image reference, in words a user can act on; or None."""
    if not text:
        return "it is empty"
    odd = next((char for char in text if char.isspace() or not char.isprintable()), None)
    if odd is not None:
        return f"it contains {odd!r}; remove it"
    if len(text) > MAX_LENGTH:
        return f"it is longer than {MAX_LENGTH} characters"
    match = _REFERENCE.fullmatch(text)
    if match is None:
        lowered = _REFERENCE.fullmatch(text.lower())
        if lowered is not None:
            return "the repository must be lowercase; write it in lowercase letters"
        return f"write {HELP}"
    if len(match[2]) > NAME_MAX:
        return f"the repository path is longer than the {NAME_MAX} characters a registry accepts"
    if match[3]:
        algorithm, _, encoded = match[3].partition(":")
        if algorithm not in DIGEST_HEX:
            return f"the digest algorithm {algorithm!r} is not one of {', '.join(DIGEST_HEX)}"
        if len(encoded) != DIGEST_HEX[algorithm] or encoded != encoded.lower():
            return f"a {algorithm} digest is {DIGEST_HEX[algorithm]} lowercase hex digits"
    return None


def split_image(image: str) -> tuple[str, str | None, str | None]:
    """repository, tag, digest of an image reference (registry ports are not tags)."""
    rest, _, digest = image.partition("@")
    slash = rest.rfind("/")
    colon = rest.rfind(":")
    if colon > slash:
        return rest[:colon], rest[colon + 1:], digest or None
    return rest, None, digest or None
