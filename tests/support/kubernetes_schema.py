"""Strict validation of a rendered object against the Kubernetes OpenAPI schema of v1.30
(unknown fields are errors), with the schemas the kubernetes-validate package ships."""

from __future__ import annotations

KUBERNETES_VERSION = "1.30.0"


def validate(obj: dict) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
