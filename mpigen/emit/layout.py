"""The output layout: where each object's file goes in the output folder, and the folder's
files as text (one file per object plus a kustomization.yaml per kustomize root).

Layout: DIR/<namespace>/<kind>-<name>.yaml (with overlays, DIR/<overlay>/<namespace>/...),
and DIR/kustomization.yaml (DIR/<overlay>/kustomization.yaml) listing them in install
order, so that `kubectl kustomize DIR`, Flux and Argo CD all read DIR as it is. Under the flux
profile, a target that applies its objects in steps gets a kustomize root per step, per job
or per environment (step_placement).
"""

from __future__ import annotations

from mpigen.emit.comments import KUSTOMIZATION as GENERATED
from mpigen.emit.yaml import dump_object

KUSTOMIZATION = "kustomization.yaml"
CLUSTER_FOLDER = "_cluster"  # the folder of cluster-scoped objects (no namespace)


def step_placement(obj: dict, path: str, step: str, job: str | None) -> tuple[str, str]:
    """(kustomize root, path) of an object applied in `step` (mpigen.render.target.FluxSteps):
    a job's step folder <namespace>/<job>/<step>/ holding the object's file (job given), or
    the environment's <step>/ holding the object at its usual path. Each root is applied by a
    Flux Kustomization of its own (mpigen.emit.companions)."""
    if job is None:
        return step, f"{step}/{path}"
    namespace = obj["metadata"].get("namespace") or CLUSTER_FOLDER
    root = f"{namespace}/{job}/{step}"
    return root, f"{root}/{path.rsplit('/', 1)[1]}"


def object_path(obj: dict) -> str:
    """<namespace>/<kind>-<name>.yaml: unique as Kubernetes names are, and grouped by the
    namespace (a team, usually: the unit of CODEOWNERS). Object names start with the job
    name, so a job's files sit together within each kind. No folder per job: creating
    thousands of folders costs more than rendering the jobs on some file systems."""
    meta = obj["metadata"]
    namespace = meta.get("namespace") or CLUSTER_FOLDER
    return f"{namespace}/{obj['kind'].lower()}-{meta['name']}.yaml"


def folder_files(rendered, envs=("",), refs: dict | None = None, kustomization=None) -> dict[str, str]:
    """Relative path -> text for every file of the output folder (index excluded). Each
    environment (overlay) gets its own sub-folder with its own kustomization.yaml, also
    when it has no objects (all its jobs archived): it stays a kustomize root. With `refs`,
    an object whose text a store keeps (mpigen.emit.rendered.TextStore) goes there instead, as
    path -> the object. `kustomization` makes a kustomization.yaml's text from its
    resources (kustomization_text, or a cache of it: mpigen.cache.kustomizations)."""
    kustomization = kustomization or kustomization_text
    files: dict[str, str] = {}
    resources: dict[str, list[str]] = {f"{env}/" if env else "": [] for env in envs}
    for item in rendered:
        prefix = f"{item.env}/" if item.env else ""
        if prefix + item.path in files or (refs and prefix + item.path in refs):  # validation makes jobs unique
            raise AssertionError(f"two objects would be written to {prefix + item.path}")
        if refs is not None and item.ref is not None:
            refs[prefix + item.path] = item
        else:
            files[prefix + item.path] = item.text
        resources.setdefault(prefix, []).append(item.path)
        if item.root:  # also a kustomize root of its own (flux: a job's workers or launcher)
            resources.setdefault(f"{prefix}{item.root}/", []).append(item.path[len(item.root) + 1:])
    for prefix, paths in resources.items():
        files[prefix + KUSTOMIZATION] = kustomization(paths)
    return files


def kustomization_text(paths: list[str]) -> str:
    """The kustomization.yaml of a kustomize root listing `paths` (relative to it), in order."""
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": paths,
    }
    return dump_object(kustomization, GENERATED)
