"""One side of a diff read into manifests: every object of a render's files by its key
(environment, apiVersion, kind, namespace, name; never its file), the job each object
belongs to, and the blueprint and overlay files each environment's objects were rendered
from (their `# Source:` comments). Kustomization files, dotfiles and other files hold no
objects."""

from __future__ import annotations

import posixpath
import re

from mpigen.errors import Diagnostic, InputError, error
from mpigen.kube.labels import JOB_LABEL
from mpigen.kube.values import get
from mpigen.load.document import Document
from mpigen.load.parser import parse
from mpigen.review.diff.model import Manifest, ObjectKey

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
SOURCE = re.compile(r"^# Source: (.+)$", re.MULTILINE)  # `# Source: BLUEPRINT[, OVERLAY]`, as mpigen writes it
JOB_LABELS = (JOB_LABEL, "mpi_job_name", "app")


def read_render(files: dict[str, str], label: str, problems: list[Diagnostic]) -> dict[ObjectKey, Manifest]:
    """Every object of one render by key; problems are appended, not raised."""
    roots = _roots(files)
    objects: dict[ObjectKey, Manifest] = {}
    for path in sorted(files):
        if not _is_manifest(path):
            continue
        try:
            docs = parse(files[path], f"{label}/{path}")
        except InputError as exc:
            problems.extend(exc.diagnostics)
            continue
        for doc in docs:
            problems.extend(doc.problems)
            if doc.data is None or doc.problems:
                continue
            try:
                key = _object_key(doc, _environment(path, roots))
            except InputError as exc:
                problems.extend(exc.diagnostics)
                continue
            first = objects.get(key)
            if first is not None:
                problems.append(error(doc.start, f"{key} is defined twice in {label} (first at {first.mark}); "
                                                 "keep one"))
                continue
            objects[key] = Manifest(key, doc.data, path, doc.start)
    return objects


def rendered_from(files: dict[str, str]) -> set[tuple[str, str, str]]:
    """(environment, blueprint file, overlay file) of the objects whose `# Source:` comment
    names a blueprint and an overlay (objects rendered without an overlay name none)."""
    roots = _roots(files)
    found = set()
    for path in files:
        if not _is_manifest(path):
            continue
        for source in SOURCE.findall(files[path]):
            parts = source.split(", ")
            if len(parts) == 2 and all(part.endswith((".yaml", ".yml")) for part in parts):
                found.add((_environment(path, roots), parts[0], parts[1]))
    return found


def rendered_environments(files: dict[str, str]) -> dict[str, str]:
    """Each environment of a render, by the overlay file its objects' `# Source:` comments name
    ("" for objects rendered without an overlay)."""
    roots = _roots(files)
    found = {}
    for path in files:
        if not _is_manifest(path):
            continue
        for source in SOURCE.findall(files[path]):
            parts = source.split(", ")
            if 1 <= len(parts) <= 2 and all(part.endswith((".yaml", ".yml")) for part in parts):
                found.setdefault(_environment(path, roots), parts[1] if len(parts) == 2 else "")
    return found


def blueprint_of(files: dict[str, str], manifest: Manifest) -> str:
    """The blueprint file the object was rendered from (its `# Source:` comment, the last one
    above it), or "" when none names one."""
    text = files.get(manifest.path, "")
    found = ""
    for match in SOURCE.finditer(text):
        if text.count("\n", 0, match.start()) + 1 > manifest.mark.line:
            break
        blueprint = match.group(1).split(", ")[0]
        found = blueprint if blueprint.endswith((".yaml", ".yml")) else ""
    return found


def _roots(files: dict[str, str]) -> set[str]:
    """The folders holding a kustomization file: each is an environment (an overlay)."""
    return {posixpath.dirname(path) for path in files if posixpath.basename(path) in KUSTOMIZATION_NAMES}


def _is_manifest(path: str) -> bool:
    """Object files only: kustomization files, dotfiles and other files are not objects."""
    name = posixpath.basename(path)
    hidden = any(part.startswith(".") and part not in (".", "..") for part in path.split("/"))
    return name.endswith((".yaml", ".yml")) and name not in KUSTOMIZATION_NAMES and not hidden


def _environment(path: str, roots: set[str]) -> str:
    """The nearest folder above path holding a kustomization file: an overlay such as `dev`."""
    folder = posixpath.dirname(path)
    while folder not in roots and folder:
        folder = posixpath.dirname(folder)
    return folder if folder in roots else ""


def _object_key(doc: Document, environment: str) -> ObjectKey:
    """The key of a document, or an InputError at the field that makes it no object."""
    data = doc.data
    if not isinstance(data, dict):
        raise InputError([error(doc.start, "expected a Kubernetes object: a mapping with apiVersion, kind "
                                           "and metadata.name")])
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    for loc, value in ((("apiVersion",), data.get("apiVersion")), (("kind",), data.get("kind")),
                       (("metadata", "name"), name)):
        if not isinstance(value, str) or not value:
            raise InputError([error(doc.value_mark(loc), f"not a Kubernetes object: {'.'.join(loc)} is missing, "
                                                         "empty or not a string")])
    namespace = metadata.get("namespace")
    return ObjectKey(environment, namespace if isinstance(namespace, str) else "", data["kind"], name,
                     data["apiVersion"])


def job_of(manifest: Manifest) -> tuple[str, str, str]:
    """(environment, namespace, job): the job is read from the labels mpigen and the operator write."""
    labels = get(manifest.data, "metadata", "labels")
    job = ""
    if isinstance(labels, dict):
        job = next((labels[k] for k in JOB_LABELS if isinstance(labels.get(k), str) and labels[k]), "")
    return manifest.key.environment, manifest.key.namespace, job
