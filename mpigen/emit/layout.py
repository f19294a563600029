"""The output layout: where each object's file goes in the output folder, and the folder's
files as text (one file per object plus a kustomization.yaml per kustomize root).

Layout: DIR/<namespace>/<kind>-<name>.yaml (with overlays, DIR/<overlay>/<namespace>/...),
and DIR/kustomization.yaml (DIR/<overlay>/kustomization.yaml) listing them in install
order, so that `kubectl kustomize DIR`, Flux and Argo CD all read DIR as it is. The flux
profile adds a kustomize root per job's workers and launcher (flux_root), or, for TrainJobs,
per environment the runtimes and the TrainJobs (trainjob_stage).
"""

from __future__ import annotations

from mpigen.emit.comments import KUSTOMIZATION as GENERATED
from mpigen.emit.yaml import dump_object

KUSTOMIZATION = "kustomization.yaml"
CLUSTER_FOLDER = "_cluster"  # the folder of cluster-scoped objects (no namespace)


def flux_root(obj: dict, job: str) -> str:
    """The folder of a job's workers (configuration, RBAC, StatefulSet) or of its launcher
    (the Job) in the flux profile: each is applied by a Flux Kustomization of its own, the
    launcher's depending on the workers' (see mpigen.emit.companions)."""
    namespace = obj["metadata"].get("namespace") or CLUSTER_FOLDER
    return f"{namespace}/{job}/{'launcher' if obj['kind'] == 'Job' else 'workers'}"


# Target trainjob under flux: the runtimes (and the jobs' configuration) apply before the
# TrainJobs, each stage a kustomize root of the environment's (a shared ClusterTrainingRuntime
# belongs to no one job); see mpigen.emit.companions.
RUNTIME_STAGE, TRAINJOB_STAGE = "runtimes", "trainjobs"
STAGES = (RUNTIME_STAGE, TRAINJOB_STAGE)


def trainjob_stage(obj: dict) -> str:
    return TRAINJOB_STAGE if obj["kind"] == "TrainJob" else RUNTIME_STAGE


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
    an object whose text a store keeps (mpigen.emit.rendered.Store) goes there instead, as
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
