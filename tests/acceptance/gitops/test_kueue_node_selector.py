"""The Kueue re-apply fix against a blueprint that sets its own node selector and nothing else
of what Kueue writes (issue 37): a pod template's nodeSelector is an atomic map in the JobSet
CRD (v0.12.0 config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml, line 6606:
x-kubernetes-map-type: atomic; Kubernetes' PodSpec marks it so too, from which the MPIJob
CRD's pod schema comes), so a server-side apply that sends the template's own map puts it back
whole, without the key Kueue merged in when it admitted the job. The fix (docs/gitops.md
section 9) must hold for it: Argo CD applies the live values of the fields Kueue writes, Flux
never writes over a running job, and neither fights Kueue when it stops the job and admits it
again elsewhere. Each step is modelled from its upstream source (tests.support.kueue_admission)."""

from __future__ import annotations

import pytest

from tests.support.gitops import FLUX_SSA
from tests.support.kueue_admission import (ADMITTED, admitted, argocd_rendered, argocd_respected, evicted,
                                           FLAVOUR_NODE_LABELS, jobset_update_errors, KUEUE_JOB, server_side_applied,
                                           template_paths)
from tests.support.rendering import render_text

OWN_SELECTORS = {"worker": {"node.kubernetes.io/instance-type": "p4d.24xlarge"},
                 "launcher": {"node-role.example.com/cpu": "true"}}
# test_kueue_admission's job, less its tolerations: a node selector is its only placement
BLUEPRINT = KUEUE_JOB.replace("      tolerations:\n        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n", "")
WITHOUT_SELECTORS = BLUEPRINT.split("  placement:\n")[0] + "  runPolicy:\n    cleanPodPolicy: Running\n"
# A second flavour with the same node label key: where Kueue admits the job after stopping it.
OTHER_FLAVOUR = {"example.com/gpu-pool": "h100-reserved"}


def selectors(obj: dict, templates: str) -> list[dict]:
    out = []
    for path in template_paths(obj, templates):
        template = obj
        for key in path:
            template = template[key]
        out.append(template["spec"].get("nodeSelector", {}))
    return out


@pytest.fixture(scope="module", params=sorted(ADMITTED))
def argocd(request, tmp_path_factory):
    """(target, the object Kueue admits as Git has it, the jq paths the Application ignores on it)."""
    target = request.param
    obj, entry, _ = argocd_rendered(tmp_path_factory.mktemp(target), target, BLUEPRINT)
    return target, obj, entry["jqPathExpressions"]


def _jobset(text: str) -> dict:
    obj, = [o for o in render_text(text, target="jobset", gitops="argocd") if o["kind"] == "JobSet"]
    return obj


def test_the_blueprints_own_node_selector_alone_makes_a_bare_server_side_apply_refused():
    """The issue's fact, in the model: the admitted JobSet takes a server-side apply of its render
    when the blueprint has no node selector (the apply does not send one, Kueue's stays), and
    refuses it when the blueprint has one (the atomic map goes back without the flavour's key)."""
    templates, suspend = ADMITTED["jobset"][1:3]
    for text, refused in ((WITHOUT_SELECTORS, False), (BLUEPRINT, True)):
        render = _jobset(text)
        live = admitted(render, templates, suspend)
        errors = jobset_update_errors(live, server_side_applied(live, render))
        assert bool(errors) == refused, (refused, errors)


def test_argocd_applies_the_node_selector_kueue_merged(argocd):
    """What Argo CD applies (RespectIgnoreDifferences: the live values of the ignored fields)
    keeps, in each pod template, the blueprint's own key and the flavour's, and the JobSet
    accepts it."""
    target, obj, ignored = argocd
    _, templates, suspend, _ = ADMITTED[target]
    live = admitted(obj, templates, suspend)
    result = server_side_applied(live, argocd_respected(obj, live, ignored))
    assert selectors(result, templates) == selectors(live, templates)
    assert all(FLAVOUR_NODE_LABELS.items() <= s.items() for s in selectors(result, templates))
    assert all(any(own.items() <= s.items() for own in OWN_SELECTORS.values()) for s in selectors(result, templates))
    if target == "jobset":
        assert jobset_update_errors(live, result) == []


def test_argocd_does_not_fight_kueue_when_it_stops_and_admits_the_job_again(argocd):
    """Kueue stops the job (preemption) and puts back the templates it made the workload from;
    a sync then applies those, not the old flavour's key, so Kueue can admit the job to another
    flavour with another value of that key, and the next sync is accepted again."""
    target, obj, ignored = argocd
    _, templates, suspend, _ = ADMITTED[target]
    first = server_side_applied(admitted(obj, templates, suspend), argocd_respected(obj, obj, ignored))
    stopped = evicted(first, obj, templates, suspend)
    synced = server_side_applied(stopped, argocd_respected(obj, stopped, ignored))
    assert selectors(synced, templates) == selectors(obj, templates)
    again = admitted(synced, templates, suspend, OTHER_FLAVOUR)  # no nodeSelector conflict
    result = server_side_applied(again, argocd_respected(obj, again, ignored))
    assert all(OTHER_FLAVOUR.items() <= s.items() for s in selectors(result, templates))
    if target == "jobset":
        assert jobset_update_errors(first, stopped) == []  # Kueue's own stop: suspended as it changes
        assert jobset_update_errors(stopped, synced) == []
        assert jobset_update_errors(again, result) == []


@pytest.mark.parametrize("target", sorted(ADMITTED))
def test_flux_never_writes_over_the_admitted_node_selector(target):
    """Flux has no per-field ignore: the running object is applied only if absent, so its
    node selector stays as Kueue merged it."""
    kind = ADMITTED[target][0]
    obj, = [o for o in render_text(BLUEPRINT, target=target, gitops="flux") if o["kind"] == kind]
    assert obj["metadata"]["annotations"][FLUX_SSA] == "IfNotPresent"
