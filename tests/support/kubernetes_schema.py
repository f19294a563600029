"""Strict validation of a rendered object against the Kubernetes OpenAPI schema of v1.30
(unknown fields are errors), with the schemas the kubernetes-validate package ships."""

from __future__ import annotations

KUBERNETES_VERSION = "1.30.0"


def validate(obj: dict) -> None:
    import kubernetes_validate

    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def schema_failures(cases, table_kinds: tuple[str, ...] = ()) -> list[str]:
    """Every (where, object) of `cases` that fails its check, as 'where: Kind/name: why': the
    strict Kubernetes schema (validate), or for a custom resource of `table_kinds` the schema of
    mpigen's table of kinds (mpigen.review.schemas.validate_object must say ("valid", [])). One
    test over a whole golden tree lists every failure with its file, where a test per object
    would stop at the first."""
    from mpigen.review.schemas import validate_object

    failures = []
    for where, obj in cases:
        name = f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
        if obj.get("kind") in table_kinds:
            verdict = validate_object(obj, "1.30", {})
            if verdict != ("valid", []):
                failures.append(f"{where}: {name}: {verdict}")
            continue
        try:
            validate(obj)
        except Exception as exc:  # kubernetes_validate's errors, whatever their class
            failures.append(f"{where}: {name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    return failures
