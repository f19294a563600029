"""Kubernetes name syntaxes as apimachinery defines them, and the inputs and refusals that
the name, quantity and image reference tests share (tests/acceptance/test_input_names.py,
test_generated_names.py, test_quantities.py, test_image_references.py).

The rules come from outside mpigen: k8s.io/apimachinery pkg/util/validation/validation.go
(dns1123LabelFmt, DNS1123LabelMaxLength = 63, dns1123SubdomainFmt,
DNS1123SubdomainMaxLength = 253, dns1035LabelFmt) and pkg/api/validate/content/kube.go
(labelValueFmt, LabelValueMaxLength = 63); Argo CD's tracking label and Flux's name label
carry the names of Applications and Kustomizations, so those are label values too
(shared/reference/gitops.md B.8, C).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.blueprints import blueprint_text


# k8s.io/apimachinery/pkg/util/validation/validation.go
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
# k8s.io/apimachinery/pkg/api/validate/content/kube.go
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
QUALIFIED_NAME = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                            r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


def is_label(name: str) -> bool:
    return len(name) <= 63 and DNS1123_LABEL.fullmatch(name) is not None


def is_subdomain(name: str) -> bool:
    return len(name) <= 253 and DNS1123_SUBDOMAIN.fullmatch(name) is not None


def blueprint(name: str = "job", namespace: str = "ns", **spec) -> str:
    return blueprint_text(name, namespace=namespace, **spec)


def overlay_text(body: str = "") -> str:
    return "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n" + body


def folder_state(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def one_error(done) -> str:
    """The single line of stderr of a refused run (exit 2, nothing on stdout)."""
    stderr = done.stderr.decode("utf-8")
    assert done.returncode == 2, stderr
    assert done.stdout == b"" and "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# A sha256 digest's hex part (64 characters), for image references.
F64 = "f" * 64
