"""Companion manifests: the GitOps controller's own objects for the rendered folders,
written outside the synced folders (a controller must not sync the object that tells
it what to sync).

flux: where the environment's target applies its objects in steps (mpigen.render.target.
FluxSteps), one Kustomization per step, each depending on the one before and all but the
last waiting, as Flux's own guide to running Jobs does: per job, its workers (configuration,
RBAC, StatefulSet) healthy before its launcher's Job applies; per environment, the Trainer
runtimes applied before the TrainJobs that need them. The last step never waits (a training
run outlasts any timeout). A target that needs no order (a JobSet starts its launcher
itself, an operator its MPIJob's) gets one Kustomization per environment folder, which does
not wait either. A folder of the environment's beside its target's steps (its alerts:
mpigen.monitoring.prometheus_rule) gets one of its own, which does not wait. All prune, so the objects of
a finished or replaced run go away.

Their names and files are mpigen.emit.companion_names': valid Kubernetes names of at most 63
characters (Argo CD's tracking label and Flux's name label carry them), which no two sources
of one folder can share by construction; two that still meet (a hash collision) are an error
naming both sources.

Cluster-scoped objects that several environments on one cluster share are in a folder of the
cluster's (mpigen.pipeline.assembly, Result.clusters): flux, one Kustomization that applies it,
waited on, on which the first Kustomization of each chain of those environments depends; argocd,
one Application per destination, and the environments' Applications retry a failed sync (an
Application's sync waves cannot order another's objects).

argocd: one Application per output folder rendered with the argocd profile, with what
the output needs from Argo CD:
- automated sync with prune, so that the objects of a finished or replaced run go away;
- ApplyOutOfSyncOnly, so that a sync applies only what changed (not every Job again);
- RespectIgnoreDifferences with an ignoreDifferences on the replicas of each StatefulSet the
  running job scales itself (the target's `scales_itself`: the static workers, which the
  launcher scales to 0 when training succeeds), so that self-heal does not scale it back
  up. A completed job has no entry, so Git's replicas: 0 is applied;
- and on the fields Kueue writes into the objects it admits, per kind (mpigen.render.kueue),
  so that neither a diff nor a sync undoes an admission.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from mpigen.emit import companion_names as names
from mpigen.emit.comments import COMPANION
from mpigen.emit.flux_substitution import kept_document
from mpigen.emit.rendered import Admitted
from mpigen.errors import Diagnostic, InputError, Mark, error
from mpigen.kube.labels import MANAGED_BY
from mpigen.render.namespaces import STEP as NAMESPACES_STEP
from mpigen.render.target import FluxSteps

_LABELS = {MANAGED_BY: "mpigen"}
# Argo CD: an environment whose cluster-scoped objects another Application applies syncs again
# until they are there (a TrainJob's runtime, an MPIJob's CRD): 5s, 10s, ... then every 3m, about
# 17 minutes in all (argo-cd docs/user-guide/auto_sync.md; an automated sync retries 5 times
# without it: controller/appcontroller.go, RetryStrategy{Limit: 5}).
RETRY = {"limit": 10, "backoff": {"duration": "5s", "factor": 2, "maxDuration": "3m"}}


def _document(obj: dict) -> str:
    return kept_document(obj, COMPANION)


def argocd_applications(argocd, output: Path, result, overlays) -> dict[str, str]:
    """File name -> text of the Applications for the environments of `result` rendered
    with the argocd profile (mpigen.yaml's `argocd` settings), and for each folder of the
    cluster-scoped objects of several of them (their destination's)."""
    by_name = {o.name: o for o in overlays}
    files, owners, problems = {}, {}, []
    clusters: dict[str, str] = {}  # destination -> the folder of its cluster-scoped objects
    for env, profile in zip(result.envs, result.profiles):
        if profile != "argocd":
            continue
        overlay = by_name.get(env)
        cluster = destination(overlay, argocd)
        folder = names.cluster_folder(names.cluster_application(cluster))
        ignore = [{"group": "apps", "kind": "StatefulSet", "namespace": item.sort_key[2], "name": item.sort_key[3],
                   "jsonPointers": ["/spec/replicas"]}
                  for item in result.objects if item.env == env and item.running_workers]
        ignore += _admitted_kinds(item.admitted for item in result.objects if item.env == env)
        spec = _application_spec(argocd, output / env if env else output, cluster)
        if ignore:
            spec["ignoreDifferences"] = ignore
        if env in result.clusters.get(folder, ()):
            clusters[cluster] = folder
            spec["syncPolicy"]["retry"] = dict(RETRY)
        name = names.application(env)
        _claim(owners, problems, name, _environment_owner(overlay, env), "Argo CD Application")
        files[names.application_file(name)] = _document(_application(argocd, name, spec))
    for cluster, folder in sorted(clusters.items()):
        name = names.cluster_application(cluster)
        _claim(owners, problems, name, _cluster_owner(output, folder, f"the cluster {cluster}"), "Argo CD Application")
        files[names.application_file(name)] = _document(_application(argocd, name, _application_spec(
            argocd, output / folder, cluster)))
    return _with_kustomization(files, problems)


def _admitted_kinds(admitted: Iterable[Admitted | None]) -> list[dict]:
    """One ignoreDifferences entry per kind Kueue writes into (mpigen.render.kueue): every
    object of that kind in the Application is a job's, whose admitted fields are Kueue's."""
    kinds = {(a.group, a.kind): a.paths for a in admitted if a is not None}
    return [{"group": group, "kind": kind, "jqPathExpressions": list(paths)}
            for (group, kind), paths in sorted(kinds.items())]


def _application_spec(argocd, folder: Path, cluster: str) -> dict:
    return {
        "project": argocd.project,
        "source": {"repoURL": argocd.repoURL, "targetRevision": argocd.targetRevision, "path": folder.as_posix()},
        "destination": _destination(cluster),
        "syncPolicy": {"automated": {"prune": True, "selfHeal": True},
                       "syncOptions": ["ApplyOutOfSyncOnly=true", "RespectIgnoreDifferences=true"]},
    }


def _application(argocd, name: str, spec: dict) -> dict:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
            "metadata": {"name": name, "namespace": argocd.namespace, "labels": dict(_LABELS)}, "spec": spec}


def destination(overlay, argocd) -> str:
    """The cluster an environment's Argo CD Application deploys to (an API server URL or an Argo
    CD cluster name): its overlay's `cluster`, else mpigen.yaml's `argocd.destination`."""
    return (overlay.cluster if overlay is not None else None) or argocd.destination


def _destination(cluster: str) -> dict:
    return {"server": cluster} if "://" in cluster else {"name": cluster}


def flux_kustomizations(flux, output: Path, result, steps_of: Callable[[str], tuple[FluxSteps, ...]],
                        overlays) -> dict[str, str]:
    """File name -> text of the Flux Kustomizations for the jobs of `result` rendered with
    the flux profile (mpigen.yaml's `flux` settings): a chain per job or per environment where
    a target of the environment applies its objects in steps (`steps_of(env)`, the FluxSteps of
    its targets that have them), a Kustomization per folder beside those steps, and one for the
    environment's folder where its objects are in no step (no target of its applies in steps)."""
    files, owners, problems = {}, {}, []
    overlays = {o.name: o for o in overlays}
    cluster, folder = names.cluster_kustomization(), names.cluster_folder(names.cluster_kustomization())
    needing = result.clusters.get(folder, ())
    if needing:
        _claim(owners, problems, cluster, _cluster_owner(output, folder, "the cluster"), "Flux Kustomization")
        files[names.kustomizations_file(folder)] = _document(_kustomization(flux, cluster, output / folder, wait=True,
                                                                            timeout=flux.timeout))
    for env, profile in zip(result.envs, result.profiles):
        if profile != "flux":
            continue
        roots = {item.root for item in result.objects if item.env == env and item.root}
        layouts = steps_of(env)
        documents = [doc for job_root in sorted({root.rsplit("/", 1)[0] for root in roots if "/" in root})
                     for doc in _job_chain(flux, output, result, env, job_root, _job_steps(layouts, job_root, roots),
                                           roots, owners, problems)]
        own = [doc for layout in layouts if not layout.per_job and roots
               for doc in _chain(flux, names.environment_step_kustomizations(env, layout.steps),
                                 output / env, [step for step in layout.steps if step in roots])]
        if any(item.env == env and not item.root for item in result.objects):
            own.append(_environment(flux, output, env))
        _claim_all(owners, problems, [doc["metadata"]["name"] for doc in own], _environment_owner(overlays.get(env), env))
        documents += own
        stepped = {step for layout in layouts for step in layout.steps}
        beside = tuple(sorted(root for root in roots if "/" not in root and layouts and root not in stepped))
        if beside:  # an environment's folder beside its steps (its alerts, a target's that applies none)
            extra = names.environment_step_kustomizations(env, beside)
            documents += [_kustomization(flux, name, (output / env if env else output) / root,
                                         **({"wait": True, "timeout": flux.timeout} if root == NAMESPACES_STEP
                                            else {"wait": False}))
                          for root, name in extra.items()]
            _namespaces_first(documents, extra.get(NAMESPACES_STEP))
            _claim_all(owners, problems, list(extra.values()), _environment_owner(overlays.get(env), env))
        if env in needing:  # the first of each chain (the others depend on the step before)
            for doc in documents:
                doc["spec"].setdefault("dependsOn", [{"name": cluster}])
        if documents:
            files[names.kustomizations_file(env)] = "".join(_document(doc) for doc in documents)
    return _with_kustomization(files, problems)


def _namespaces_first(documents: list[dict], namespaces: str | None) -> None:
    """Every other Kustomization of the environment that depends on none (the first of each
    chain: the others depend on the step before) depends on the one of its Namespaces
    (mpigen.render.namespaces), which waits for them: a job's objects apply once their
    namespace is there."""
    if namespaces is None:
        return
    for doc in documents:
        if doc["metadata"]["name"] != namespaces:
            doc["spec"].setdefault("dependsOn", [{"name": namespaces}])


def _job_steps(layouts: tuple[FluxSteps, ...], job_root: str, roots: set[str]) -> tuple[str, ...]:
    """The steps of the per-job layout whose folders the job `job_root` has."""
    return next(layout.steps for layout in layouts
                if layout.per_job and any(f"{job_root}/{step}" in roots for step in layout.steps))


def _kustomization(flux, name: str, folder: Path, **spec) -> dict:
    return {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
            "metadata": {"name": name, "namespace": flux.namespace, "labels": _LABELS},
            "spec": {"interval": flux.interval, "prune": True, "sourceRef": {"kind": "GitRepository",
                                                                              "name": flux.sourceRef},
                     "path": f"./{folder.as_posix()}", **spec}}


def _job_chain(flux, output: Path, result, env: str, job_root: str, steps: tuple[str, ...], roots: set[str],
               owners: dict, problems: list) -> list[dict]:
    """The Kustomizations of one job's steps (its workers, then its launcher), named after the
    job; two jobs whose names would meet are an error naming both."""
    namespace, job = job_root.split("/")
    chain = names.job_step_kustomizations(env, namespace, job, steps)
    owner = _Owner(result.sources.get((env, namespace, job)) or Mark(f"{namespace}/{job}"), f"job {namespace}/{job}",
                   "rename one of the jobs")
    _claim_all(owners, problems, list(chain.values()), owner)
    folder = output / env / job_root if env else output / job_root
    return _chain(flux, chain, folder, [step for step in steps if f"{job_root}/{step}" in roots])


def _chain(flux, chain: dict[str, str], folder: Path, steps: list[str]) -> list[dict]:
    """One Kustomization per step, `chain[step]` applying `folder/<step>`, each depending on
    the one before it; all but the last wait (healthy within the timeout), the last does not."""
    documents = []
    for index, step in enumerate(steps):
        spec: dict = {"wait": False} if index == len(steps) - 1 else {"wait": True, "timeout": flux.timeout}
        if index:
            spec["dependsOn"] = [{"name": chain[steps[index - 1]]}]
        documents.append(_kustomization(flux, chain[step], folder / step, **spec))
    return documents


def _environment(flux, output: Path, env: str) -> dict:
    """The whole folder of an environment whose target starts its jobs in order itself (a
    JobSet) or through an operator (an MPIJob): applied as it is, never waited on (a
    training run outlasts any timeout), pruned so that a finished or replaced run goes."""
    return _kustomization(flux, names.environment_kustomization(env), output / env if env else output, wait=False)


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


class _Owner(NamedTuple):
    """What a companion's name is made from: where it is written, what it is, how to rename it."""

    mark: Mark
    what: str
    fix: str


def _environment_owner(overlay, env: str) -> _Owner:
    folder = Path(overlay.doc.path).parent.as_posix() if overlay is not None else env or "."
    return _Owner(Mark(folder), f"environment {env}" if env else "the output folder", "rename one of the overlay folders")


def _cluster_owner(output: Path, folder: str, what: str) -> _Owner:
    return _Owner(Mark((output / folder).as_posix()), f"the cluster-scoped objects of {what}",
                  "give the cluster another name")


def _claim_all(owners: dict[str, _Owner], problems: list[Diagnostic], wanted: list[str], owner: _Owner) -> None:
    """Take each of an owner's Flux Kustomization names, up to the first another owner has."""
    for name in wanted:
        if not _claim(owners, problems, name, owner, "Flux Kustomization"):
            return


def _claim(owners: dict[str, _Owner], problems: list[Diagnostic], name: str, owner: _Owner, kind: str) -> bool:
    """Take `name` for `owner` in one companion folder; a name another owner has (a hash
    collision: mpigen.emit.companion_names) is a problem at the second, naming the first
    (callers stop at the first, for one problem per pair)."""
    other = owners.setdefault(name, owner)
    if other != owner:
        problems.append(error(owner.mark, f"the {kind} of {owner.what} would be named {name}, as that of "
                                          f"{other.what} at {other.mark}; {owner.fix}"))
    return other == owner
