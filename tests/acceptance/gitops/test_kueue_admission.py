"""Re-applying a job's objects after Kueue admitted it (issue: "Argo CD cannot sync a JobSet
once Kueue has admitted it"): each profile's controller must leave what Kueue wrote alone, or
every later sync of the folder fails while the job runs. The objects Kueue admits are
rendered from a blueprint that sets its own node selector and tolerations (an atomic map and
list, which a server-side apply puts back whole), admitted the way Kueue admits them, and
applied again the way each controller applies them (tests.support.kueue_admission: each
step from its upstream source)."""

from __future__ import annotations

import pytest

from tests.support.gitops import FLUX_SSA
from tests.support.kueue_admission import (ADMITTED, admitted, argocd_normalized, argocd_rendered, argocd_respected,
                                           FLAVOUR_NODE_LABELS, FLAVOUR_TOLERATIONS, jobset_update_errors,
                                           KUEUE_JOB as BLUEPRINT, merge_patch, merge_patch_applied,
                                           server_side_applied, template_paths)
from tests.support.rendering import render_text

SYNC_OPTIONS = "argocd.argoproj.io/sync-options"


@pytest.fixture(scope="module", params=sorted(ADMITTED))
def argocd(request, tmp_path_factory):
    """(target, the object Kueue admits, the Application's ignoreDifferences entry for its kind,
    the Application's sync options) of the blueprint rendered with Argo CD Applications."""
    target = request.param
    obj, entry, application = argocd_rendered(tmp_path_factory.mktemp(target), target, BLUEPRINT)
    return target, obj, entry, application["spec"]["syncPolicy"]["syncOptions"]


def _admitted(target: str, obj: dict) -> dict:
    kind, templates, suspend, _ = ADMITTED[target]
    return admitted(obj, templates, suspend)


def test_the_application_ignores_every_field_kueue_writes_and_nothing_else(argocd):
    """The entry names the five fields of podset.Merge on each pod template of the kind, and
    every field Kueue's admission changes lies under one of them (or is the unsuspend, which
    Git does not state while the job runs)."""
    target, obj, entry, _ = argocd
    kind, templates, suspend, count = ADMITTED[target]
    assert len(template_paths(obj, templates)) == count
    assert entry["jqPathExpressions"] == [f"{templates}.{field}" for field in (
        "metadata.labels", "metadata.annotations", "spec.nodeSelector", "spec.tolerations", "spec.schedulingGates")]
    live = _admitted(target, obj)
    assert live != obj
    unsuspended = "." + ".".join(suspend)
    assert argocd_normalized(live, [*entry["jqPathExpressions"], unsuspended]) == \
           argocd_normalized(obj, [*entry["jqPathExpressions"], unsuspended])


def test_argocd_syncs_only_what_changed_and_respects_what_it_ignores(argocd):
    """So a sync does not even apply the admitted object again unless Git changed it."""
    _, _, _, options = argocd
    assert {"ApplyOutOfSyncOnly=true", "RespectIgnoreDifferences=true"} <= set(options)


def test_what_argocd_applies_keeps_what_kueue_wrote(argocd):
    """When Argo CD does apply it (a label edit, a manual sync), RespectIgnoreDifferences puts
    the live values of the ignored fields into what it applies: the pod templates come out as
    Kueue left them, whichever way the object is applied."""
    target, obj, entry, _ = argocd
    kind, templates, _, _ = ADMITTED[target]
    live = _admitted(target, obj)
    applied = argocd_respected(obj, live, entry["jqPathExpressions"])
    for result in (server_side_applied(live, applied), merge_patch_applied(applied, applied, live)):
        assert [_template(result, p) for p in template_paths(result, templates)] == \
               [_template(live, p) for p in template_paths(live, templates)]
        if kind == "JobSet":
            assert jobset_update_errors(live, result) == []


def test_custom_resources_are_applied_server_side(argocd):
    """A client-side apply of a custom resource is a JSON merge patch: any list that differs
    from the live one goes whole. Only the Job, which has a strategic merge, applies client-side."""
    target, obj, _, _ = argocd
    options = obj["metadata"].get("annotations", {}).get(SYNC_OPTIONS, "")
    assert ("ServerSideApply=true" in options.split(",")) == (target != "static")


def _template(obj: dict, path: list) -> dict:
    for key in path:
        obj = obj[key]
    return obj


@pytest.fixture(scope="module")
def jobset():
    """The JobSet as rendered under the flux profile (Flux applies it as it is in Git)."""
    obj, = [o for o in render_text(BLUEPRINT, target="jobset", gitops="flux") if o["kind"] == "JobSet"]
    return obj


def test_the_unchanged_render_applied_client_side_is_refused(jobset):
    """The issue's case: Argo CD's default apply of the JobSet as Git has it, over the admitted
    one, sends spec.replicatedJobs whole, without the flavour; the JobSet webhook refuses it."""
    live = admitted(jobset, ".spec.replicatedJobs[].template.spec.template", ("spec", "suspend"))
    assert "replicatedJobs" in merge_patch(jobset, jobset, live)["spec"]
    assert jobset_update_errors(live, merge_patch_applied(jobset, jobset, live)) == [
        "spec.replicatedJobs: Invalid value: field is immutable"]


def test_the_unchanged_render_applied_server_side_is_refused_too(jobset):
    """A forced server-side apply alone does not do: the blueprint's own nodeSelector (an
    atomic map) and tolerations (an atomic list) go back whole, without the flavour's."""
    live = admitted(jobset, ".spec.replicatedJobs[].template.spec.template", ("spec", "suspend"))
    assert jobset_update_errors(live, server_side_applied(live, jobset)) == [
        "spec.replicatedJobs: Invalid value: field is immutable"]


def test_flux_creates_a_running_jobset_and_leaves_it(jobset):
    """Flux has no ignore rule: the running JobSet is applied only if absent (fluxcd/
    kustomize-controller v1.9, internal/controller/kustomization_controller.go: the ssa
    IfNotPresent selector of the apply options), so Flux never writes over Kueue's admission."""
    assert jobset["metadata"]["annotations"][FLUX_SSA] == "IfNotPresent"


def test_a_completed_queued_run_leaves_git_so_flux_prunes_it_rather_than_suspends_it():
    """Flux could apply the suspend of a `completed` JobSet (the JobSet webhook lets a JobSet
    being suspended change its templates), but Kueue resumes a suspended job whose Workload is
    admitted (reconciler.go step 7): a queued `completed` run is not in Git at all, and the
    pruning deletes it and its Workload (tests/acceptance/gitops/test_kueue_lifecycle.py)."""
    running = render_text(BLUEPRINT, target="jobset", gitops="flux")
    assert [o for o in running if o["kind"] == "JobSet"]
    completed_text = BLUEPRINT.replace("spec:\n  image", "spec:\n  state: completed\n  image")
    assert render_text(completed_text, target="jobset", gitops="flux") == []


@pytest.mark.parametrize("target", sorted(ADMITTED))
def test_every_object_kueue_admits_is_left_alone_by_flux_while_it_runs(target):
    kind, templates, suspend, _ = ADMITTED[target]
    obj, = [o for o in render_text(BLUEPRINT, target=target, gitops="flux") if o["kind"] == kind]
    assert obj["metadata"]["annotations"][FLUX_SSA] == "IfNotPresent"
    # the blueprint's own values are in the templates Kueue merges its flavour into
    live = admitted(obj, templates, suspend)
    selectors = [_template(live, p)["spec"]["nodeSelector"] for p in template_paths(live, templates)]
    assert all(FLAVOUR_NODE_LABELS.items() <= s.items() for s in selectors)
    assert any({"node.kubernetes.io/instance-type", "node-role.example.com/cpu"} & s.keys() for s in selectors)
    assert all(FLAVOUR_TOLERATIONS[0] in _template(live, p)["spec"]["tolerations"]
               for p in template_paths(live, templates))
