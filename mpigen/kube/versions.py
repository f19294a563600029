"""The Kubernetes versions the output may be for (--kube-version): those whose schemas the
optional kubernetes-validate package ships, which the MPIJob CRD's pod templates and
`validate --output` take."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from mpigen.errors import NOWHERE, InputError, error


def available_kube_versions() -> list[str]:
    """The Kubernetes versions whose schemas kubernetes-validate ships ("1.30", ...)."""
    root = schema_root()
    versions = sorted({p.name.split("-")[0].lstrip("v").rsplit(".", 1)[0] for p in root.iterdir()
                       if p.name.endswith("-local")}, key=lambda v: tuple(int(x) for x in v.split(".")))
    return versions


def schema_root() -> Path:
    """The schemas kubernetes-validate ships, found without importing it (its package loads
    jsonschema, which rendering never needs). Raises ModuleNotFoundError when it is not installed."""
    spec = find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("No module named 'kubernetes_validate'", name="kubernetes_validate")
    return Path(spec.submodule_search_locations[0], "kubernetes-json-schema")


def require_kube_version(version: str, flag: str, needs: str) -> None:
    """InputError unless the optional kubernetes-validate package is installed (else message
    `needs`, at `flag`) and ships the schemas of Kubernetes `version`."""
    try:
        versions = available_kube_versions()
    except ModuleNotFoundError:
        raise InputError([error(NOWHERE, f"{flag}: {needs}")])
    if version not in versions:
        raise InputError([error(NOWHERE, f"--kube-version: Kubernetes {version} is not one of the known versions "
                                                        f"{', '.join(versions)}")])
