"""The MPI containers' names: spec.mainContainer names both, a role's
spec.podTemplatePatch.<role>.containerName its own, never both ways at once; and the
launcher's may not be one of its download steps' (Kubernetes refuses two containers of a
pod with one name, init containers included).

The init containers a role's podTemplatePatch writes each have a name, a DNS-1123 label, as
the API server requires of every container (Kubernetes v1.30 pkg/apis/core/validation/
validation.go validateContainerCommon: field.Required, ValidateDNS1123Label); the pod
template's names are judged together once compiled (mpigen.check.template_containers)."""

from __future__ import annotations

import re

from mpigen.errors import Diagnostic, error
from mpigen.kube.names import DNS1123_LABEL
from mpigen.load.document import field_path
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


def check_init_container_names(f: Fields, out: list[Diagnostic]) -> None:
    for role in ("launcher", "worker"):
        loc = ("spec", "podTemplatePatch", role, "pod", "initContainers")
        inits = f.get(loc)
        for index, container in enumerate(inits if isinstance(inits, list) else []):
            here = loc + (index,)
            if not f.ok(here):
                continue
            if not isinstance(container, dict):
                if container is not None:
                    continue  # another type: mpigen.validate.pod_patch says so
                out.append(error(f.doc.value_mark(here), f"{field_path(here)}: expected a container (a mapping with "
                                                         "a name and an image), and the API server cannot read "
                                                         "anything else"))
                continue
            name = container.get("name")
            if name is None or name == "":
                out.append(error(f.doc.value_mark(here if name is None else here + ("name",)),
                                 f"{field_path(here)}: an init container needs a name, and the API server refuses "
                                 "one without (field.Required); give it a name (a DNS-1123 label: lowercase letters, "
                                 "digits and '-')"))
            elif not isinstance(name, str) or len(name) > 63 or not re.fullmatch(DNS1123_LABEL, name):
                out.append(error(f.doc.value_mark(here + ("name",)),
                                 f"{field_path(here + ('name',))}: {name!r} is no container name the API server "
                                 "takes (ValidateDNS1123Label: at most 63 lowercase letters, digits and '-', starting "
                                 "and ending with a letter or digit); rename it"))
