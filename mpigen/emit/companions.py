"""Companion manifests: the GitOps controller's own objects for the rendered folders,
written outside the synced folders (a controller must not sync the object that tells
it what to sync).

flux: per job of the static target, the pair of Kustomizations Flux's own guide to
running Jobs uses: the job's workers (configuration, RBAC, StatefulSet) with wait, so that
they are healthy (ready) before the launcher Kustomization, which depends on them, applies
the Job; the launcher Kustomization does not wait (a training run outlasts any timeout).
The targets that need no such order (a JobSet starts its launcher itself, an operator its
MPIJob's) get one Kustomization per environment folder, which does not wait either.
TrainJobs get two per environment: its runtimes and configuration with wait, and its
TrainJobs, which depend on them (the Trainer refuses a TrainJob whose runtime is missing). All
prune, so the objects of a finished or replaced run go away.

Their names are built by mpigen.kube.names.generated_name: valid Kubernetes names of at most
63 characters (Argo CD's tracking label and Flux's name label carry them), different for
different environments and jobs; two that still meet (a hash collision) are an error
naming both sources.

argocd: one Application per output folder rendered with the argocd profile, with what
the output needs from Argo CD:
- automated sync with prune, so that the objects of a finished or replaced run go away;
- ApplyOutOfSyncOnly, so that a sync applies only what changed (not every Job again);
- RespectIgnoreDifferences with an ignoreDifferences on the replicas of each running
  job's worker StatefulSet: its launcher scales it to 0 when training succeeds (see
  mpigen.render.static.gitops), and self-heal must not scale it back up. A completed job has
  no entry, so Git's replicas: 0 is applied.
"""

from __future__ import annotations

from pathlib import Path

from mpigen.emit.layout import RUNTIME_STAGE, STAGES, TRAINJOB_STAGE
from mpigen.emit.comments import COMPANION
from mpigen.emit.yaml import dump_object
from mpigen.errors import InputError, Mark, error
from mpigen.kube.names import generated_name
from mpigen.kube.labels import MANAGED_BY

_LABELS = {MANAGED_BY: "mpigen"}
LONGEST_SUFFIX = "-launcher"  # of a job's two Kustomizations, <base>-workers and <base>-launcher


def _document(obj: dict) -> str:
    return dump_object(obj, COMPANION)


def argocd_applications(argocd, output: Path, result, overlays) -> dict[str, str]:
    """File name -> text of the Applications for the environments of `result` rendered
    with the argocd profile (mpigen.yaml's `argocd` settings)."""
    by_name = {o.name: o for o in overlays}
    files, owners, problems = {}, {}, []
    for env, profile in zip(result.envs, result.profiles):
        if profile != "argocd":
            continue
        overlay = by_name.get(env)
        cluster = (overlay.cluster if overlay is not None else None) or argocd.destination
        destination = {"server": cluster} if "://" in cluster else {"name": cluster}
        ignore = [{"group": "apps", "kind": "StatefulSet", "namespace": item.sort_key[2], "name": item.sort_key[3],
                   "jsonPointers": ["/spec/replicas"]}
                  for item in result.objects if item.env == env and item.running_workers]
        spec = {
            "project": argocd.project,
            "source": {"repoURL": argocd.repoURL, "targetRevision": argocd.targetRevision,
                       "path": (output / env).as_posix() if env else output.as_posix()},
            "destination": destination,
            "syncPolicy": {"automated": {"prune": True, "selfHeal": True},
                           "syncOptions": ["ApplyOutOfSyncOnly=true", "RespectIgnoreDifferences=true"]},
        }
        if ignore:
            spec["ignoreDifferences"] = ignore
        name = generated_name("mpigen", (env,) if env else ())
        folder = _overlay_folder(overlay, env)
        other = owners.setdefault(name, folder)
        if other != folder:
            problems.append(error(Mark(folder), f"the Argo CD Application of this overlay would be named {name!r}, "
                                                f"as that of {other}; rename one of the overlay folders"))
        application = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                       "metadata": {"name": name, "namespace": argocd.namespace,
                                    "labels": dict(_LABELS)},
                       "spec": spec}
        files[f"application-{name}.yaml"] = _document(application)
    return _with_kustomization(files, problems)


def flux_kustomizations(flux, output: Path, result) -> dict[str, str]:
    """File name -> text of the Flux Kustomizations for the jobs of `result` rendered with
    the flux profile (mpigen.yaml's `flux` settings): a pair per job where the target
    stages the launcher, else one for the environment's folder."""
    files, owners, problems = {}, {}, []
    for env, profile in zip(result.envs, result.profiles):
        if profile != "flux":
            continue
        roots = sorted({item.root.rsplit("/", 1)[0] for item in result.objects if item.env == env and item.root})
        stages = [root for root in STAGES if root in roots]
        documents = _stage_pair(flux, output, env, stages)
        for job_root in roots:
            if job_root not in STAGES:
                documents += _job_pair(flux, output, result, env, job_root, owners, problems)
        if not roots and any(item.env == env for item in result.objects):
            documents.append(_environment(flux, output, env))
        if documents:
            name = f"kustomizations-{env}.yaml" if env else "kustomizations.yaml"
            files[name] = "".join(_document(doc) for doc in documents)
    return _with_kustomization(files, problems)


def _kustomization(flux, name: str, folder: Path, **spec) -> dict:
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": flux.namespace, "labels": _LABELS},
            "spec": {"interval": flux.interval, "prune": True, "sourceRef": {"kind": "GitRepository",
                                                                              "name": flux.sourceRef},
                     "path": f"./{folder.as_posix()}", **spec}}


def _job_pair(flux, output: Path, result, env: str, job_root: str, owners: dict, problems: list) -> list[dict]:
    """The workers' Kustomization (wait) and the launcher's, which depends on it."""
    namespace, job = job_root.split("/")
    base = generated_name("mpigen", tuple(part for part in (env, namespace, job) if part), room=len(LONGEST_SUFFIX))
    source = result.sources.get((env, namespace, job), Mark(f"{namespace}/{job}"))
    other = owners.setdefault(base, source)
    if other != source:
        problems.append(error(source, f"the Flux Kustomizations of job {namespace}/{job} would be named {base}-*, "
                                      f"as those of the job at {other}; rename one of the jobs"))
    folder = output / env / job_root if env else output / job_root
    return [_kustomization(flux, f"{base}-workers", folder / "workers", wait=True, timeout=flux.timeout),
            _kustomization(flux, f"{base}-launcher", folder / "launcher", wait=False,
                           dependsOn=[{"name": f"{base}-workers"}])]


def _stage_pair(flux, output: Path, env: str, stages: list[str]) -> list[dict]:
    """TrainJobs: the environment's runtimes and configuration (wait: applied and healthy)
    and its TrainJobs, which depend on them (the Trainer's webhook refuses a TrainJob whose
    runtime does not exist yet); the TrainJobs alone when every runtime is the cluster's."""
    base = generated_name("mpigen", (env,) if env else (), room=len(TRAINJOB_STAGE) + 1)
    folder = output / env
    documents = []
    if RUNTIME_STAGE in stages:
        documents.append(_kustomization(flux, f"{base}-{RUNTIME_STAGE}", folder / RUNTIME_STAGE, wait=True,
                                        timeout=flux.timeout))
    if TRAINJOB_STAGE in stages:
        after = {"dependsOn": [{"name": f"{base}-{RUNTIME_STAGE}"}]} if RUNTIME_STAGE in stages else {}
        documents.append(_kustomization(flux, f"{base}-{TRAINJOB_STAGE}", folder / TRAINJOB_STAGE, wait=False,
                                        **after))
    return documents


def _environment(flux, output: Path, env: str) -> dict:
    """The whole folder of an environment whose target starts its jobs in order itself (a
    JobSet) or through an operator (an MPIJob): applied as it is, never waited on (a
    training run outlasts any timeout), pruned so that a finished or replaced run goes."""
    return _kustomization(flux, generated_name("mpigen", (env,) if env else ()), output / env if env else output,
                          wait=False)


def _with_kustomization(files: dict[str, str], problems: list) -> dict[str, str]:
    """The companion files and the kustomization.yaml that lists them, or InputError with
    every problem found."""
    if problems:
        raise InputError(problems)
    if files:
        kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                         "resources": sorted(files)}
        files["kustomization.yaml"] = _document(kustomization)
    return files


def _overlay_folder(overlay, env: str) -> str:
    return Path(overlay.doc.path).parent.as_posix() if overlay is not None else env or "."
