"""Names that reach the output: the rule for the names mpigen takes from its inputs, and
how it builds the names it generates from them.

Taken from the inputs:
- every path or name written into the output (blueprint and overlay paths in `# Source:`
  comments, overlay folder names, the strings of mpigen.yaml) is printable: no control
  character (a line break would end a comment or an index line and start another), no
  format character (bidirectional overrides), no undecodable byte;
- an overlay's name, its folder name, names a folder of the output and appears in the
  names of the GitOps objects: it is a Kubernetes label value (1 to 63 letters, digits,
  '-', '_' and '.', starting and ending with a letter or digit), so never '.', '..', a
  dotfile such as .mpigen-index, nor anything with '/' or '\\'; and not a name the
  output folder itself uses (kustomization.yaml).

Generated (`generated_name`): the names of the GitOps controllers' objects, built from
several inputs (overlay, namespace, job). Joining them with '-' alone is ambiguous (job
`c` in namespace `a-b` and job `b-c` in namespace `a`), so the '-' inside every part but
the last is doubled: `mpigen-a--b-c` and `mpigen-a-b-c`. Parts without '-' give the
plain join, as before. Where a part is not a DNS-1123 label (an overlay named Prod_EU)
or the name would be too long, the name is `<prefix>--<readable>-<hash>`: a lowercase
summary and a hash of the exact inputs. A plain name never has '--' right after its
prefix (a DNS label starts with a letter or digit), so the two forms cannot meet.
"""

from __future__ import annotations

import hashlib
import json
import re

from pydantic_core import PydanticCustomError

from mpigen.errors import shown

# Kubernetes name syntaxes (k8s.io/apimachinery/pkg/util/validation), as the patterns the
# blueprint models check.
DNS1035_LABEL = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
QUALIFIED_NAME = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                  r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
_DNS1123_LABEL, _LABEL_VALUE = re.compile(DNS1123_LABEL), re.compile(LABEL_VALUE)
_DNS1123_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN)
MAX_NAME = 63  # a label value: Argo CD's tracking label and Flux's name label carry these names
HASH_LENGTH = 10
# Names the output folder itself uses (mpigen.emit.layout, mpigen.output.index); an overlay's folder sits beside them.
RESERVED_FOLDER_NAMES = ("kustomization.yaml", ".mpigen-index")


# k8s.io/apimachinery v0.34 pkg/util/validation/validation.go: IsQualifiedName takes an
# optional DNS-1123 subdomain prefix of at most DNS1123SubdomainMaxLength (253) characters
# and '/', then a name part of at most qualifiedNameMaxLength (63); the patterns above say
# nothing of these lengths. Label and annotation keys (ValidateLabelName, and
# ValidateAnnotations' keys), and Kueue's topology request annotations (kueue v0.19.2
# pkg/controller/jobframework/tas_validation.go: metavalidation.ValidateLabelName) are so checked.
MAX_QUALIFIED_NAME_PART = 63
MAX_QUALIFIED_NAME_PREFIX = 253


def is_dns1123_label(value: object) -> bool:
    """IsDNS1123Label: at most 63 lowercase letters, digits and '-', a letter or digit at each end."""
    return isinstance(value, str) and len(value) <= 63 and _DNS1123_LABEL.fullmatch(value) is not None


def is_dns1123_subdomain(value: object) -> bool:
    """IsDNS1123Subdomain: at most 253 characters of DNS-1123 labels joined by '.'."""
    return isinstance(value, str) and len(value) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(value) is not None


def qualified_name_lengths_problem(key: str) -> str | None:
    """Which part of a qualified name (already of QUALIFIED_NAME's form) is too long for the
    API server's IsQualifiedName, or None."""
    prefix, _, name = key.rpartition("/")
    if len(prefix) > MAX_QUALIFIED_NAME_PREFIX:
        return (f"{key!r} is not a Kubernetes qualified name: its prefix {prefix[:20] + '...'!r} has {len(prefix)} "
                f"characters, at most {MAX_QUALIFIED_NAME_PREFIX} are allowed; shorten the prefix")
    if len(name) > MAX_QUALIFIED_NAME_PART:
        return (f"{key!r} is not a Kubernetes qualified name: its name part (after the prefix and '/') has "
                f"{len(name)} characters, at most {MAX_QUALIFIED_NAME_PART} are allowed; shorten it")
    return None


# k8s.io/kubernetes pkg/apis/core/helper/helpers.go (commit 00010901c746f9ad7ae204b123615c2880d6f2fd,
# as in every release since v1.8): IsExtendedResourceName takes a name outside the
# kubernetes.io domain that does not start with `requests.` and whose quota name
# `requests.<name>` is a qualified name, so the prefix has room for the 9 characters of
# `requests.`; pkg/apis/core/validation/validation.go validateContainerResourceName refuses a
# container resource with a prefix that is not one ("doesn't follow extended resource name standard").
QUOTA_REQUESTS_PREFIX = "requests."
MAX_EXTENDED_RESOURCE_PREFIX = MAX_QUALIFIED_NAME_PREFIX - len(QUOTA_REQUESTS_PREFIX)


def resource_name_problem(name: str) -> str | None:
    """Why the API server refuses a container resource name (already of QUALIFIED_NAME's form), or
    None: the lengths of IsQualifiedName, and an extended resource's rules (IsExtendedResourceName)."""
    problem = qualified_name_lengths_problem(name)
    if problem is not None or "/" not in name or "kubernetes.io/" in name:
        return problem  # a name without a prefix, or in kubernetes.io, is Kubernetes' own
    prefix = name.rpartition("/")[0]
    if name.startswith(QUOTA_REQUESTS_PREFIX):
        return (f"{name!r} is not an extended resource name: one may not start with {QUOTA_REQUESTS_PREFIX!r} "
                "(the API server keeps that for quotas); remove it")
    if len(prefix) > MAX_EXTENDED_RESOURCE_PREFIX:
        return (f"{name!r} is not an extended resource name: its prefix {prefix[:20] + '...'!r} has {len(prefix)} "
                f"characters, at most {MAX_EXTENDED_RESOURCE_PREFIX} are allowed (the API server's quota name "
                f"{QUOTA_REQUESTS_PREFIX + '<name>'!r} must be a qualified name); shorten the prefix")
    return None


def unprintable(text: str) -> str | None:
    """The first character of text that cannot be shown as it is (control and format
    characters, line separators, undecodable bytes), written as an escape; else None."""
    for char in text:
        if not char.isprintable():
            return shown(char)
    return None


def path_problem(path: str) -> str | None:
    """Why a path cannot be written into the output, or None."""
    char = unprintable(path)
    if char is None:
        return None
    return (f"the path contains the character {char}, which cannot be written into the output (a line break "
            "would end the `# Source:` comment and forge what follows); rename it")


def printable(value: str) -> str:
    """A pydantic validator: the string, when it holds nothing unprintable (reported at
    the value, as a pattern mismatch is)."""
    char = unprintable(value)
    if char is not None:
        raise PydanticCustomError("unprintable", f"the character {char} cannot be written into the output; remove it")
    return value


def folder_name_problem(name: str) -> str | None:
    """Why an overlay's name (its folder name) cannot name an output folder, or None."""
    if name in RESERVED_FOLDER_NAMES:
        return f"{name!r} is a file of the output folder; rename the overlay folder"
    if not name or len(name) > MAX_NAME or not _LABEL_VALUE.fullmatch(name):
        return (f"an overlay's folder name names its output folder and the GitOps objects of its environment, so "
                f"it must be 1 to {MAX_NAME} letters, digits, '-', '_' and '.', starting and ending with a letter "
                f"or digit (a Kubernetes label value); got {name!r}; rename the folder")
    return None


def generated_name(prefix: str, parts: tuple[str, ...], room: int = 0, last_raw: bool = True) -> str:
    """A DNS-1123 label of at most MAX_NAME - room characters (room: what the caller
    appends, such as '-workers'), different for every different `parts` of one length
    (see the module docstring); with `last_raw` false, the '-' of the last part is doubled
    too (mpigen.emit.companion_names)."""
    limit = MAX_NAME - room
    if not parts:
        return prefix
    if all(_DNS1123_LABEL.fullmatch(part) for part in parts):
        doubled, raw = (parts[:-1], parts[-1:]) if last_raw else (parts, ())
        plain = "-".join([prefix, *(part.replace("-", "--") for part in doubled), *raw])
        if len(plain) <= limit:
            return plain
    digest = hashlib.sha256(json.dumps([prefix, *parts]).encode("utf-8")).hexdigest()[:HASH_LENGTH]
    readable = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")
    readable = readable[:max(0, limit - len(prefix) - 3 - HASH_LENGTH)].strip("-")
    return f"{prefix}--{readable}-{digest}" if readable else f"{prefix}--{digest}"
