"""The MPI containers' names: spec.mainContainer names both, a role's
spec.podTemplatePatch.<role>.containerName its own, never both ways at once; and the
launcher's may not be one of its download steps' (Kubernetes refuses two containers of a
pod with one name, init containers included)."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.validate.fields import Fields, spec

DOWNLOAD_PREFIX = "download-"  # a download step's init container: download-<dataset> (mpigen.compile.blueprint)


def check_container_names(f: Fields, out: list[Diagnostic]) -> None:
    data = spec(f)
    for role in ("launcher", "worker"):
        loc = ("spec", "podTemplatePatch", role, "containerName")
        name = f.get(loc)
        if name is None or not f.ok(loc, ("spec", "mainContainer"), ("spec", "datasets")):
            continue
        if data.get("mainContainer") is not None:
            out.append(error(f.doc.value_mark(loc), f"spec.podTemplatePatch.{role}.containerName: spec.mainContainer "
                                                    "names both MPI containers already; keep one of the two"))
        downloads = [DOWNLOAD_PREFIX + d.get("name", "") for d in data.get("datasets") or []
                     if isinstance(d, dict) and d.get("download") is not None]
        if role == "launcher" and name in downloads:
            out.append(error(f.doc.value_mark(loc), f"spec.podTemplatePatch.launcher.containerName: {name!r} is the "
                                                    "name of a dataset's download step on the launcher; choose "
                                                    "another"))
