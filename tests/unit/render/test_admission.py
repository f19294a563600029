"""The annotations that keep each profile's controller from undoing Kueue's admission."""

from __future__ import annotations

import pytest

from mpigen.render.kueue import ADMITTED_FIELDS, ignored_paths, reapplied_safely
from mpigen.render.kinds import Admission

CUSTOM = Admission((".spec.jobs[].template",), ("spec", "suspend"), merge_patch=True)
BUILT_IN = Admission((".spec.template",), ("spec", "suspend"))


def _obj(**annotations) -> dict:
    meta = {"name": "pi"}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"metadata": meta, "spec": {}}


def test_the_paths_are_each_field_of_each_template():
    two = Admission((".a", ".b"), ("spec", "suspend"))
    assert ignored_paths(two) == tuple(f"{t}.{f}" for t in (".a", ".b") for f in ADMITTED_FIELDS)


def test_argocd_applies_a_custom_resource_server_side_keeping_its_other_sync_options():
    obj = _obj(**{"argocd.argoproj.io/sync-options": "Prune=false"})
    reapplied_safely(obj, CUSTOM, "argocd")
    assert obj["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false,ServerSideApply=true"
    reapplied_safely(obj, CUSTOM, "argocd")  # once
    assert obj["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false,ServerSideApply=true"


def test_argocd_applies_a_built_in_kind_as_it_does_any_other():
    obj = _obj()
    reapplied_safely(obj, BUILT_IN, "argocd")
    assert obj == _obj()


@pytest.mark.parametrize("admission", [CUSTOM, BUILT_IN])
def test_flux_creates_a_running_object_and_leaves_it_but_applies_a_suspended_one(admission):
    running, suspended = _obj(), _obj()
    suspended["spec"]["suspend"] = True
    reapplied_safely(running, admission, "flux")
    reapplied_safely(suspended, admission, "flux")
    assert running["metadata"]["annotations"] == {"kustomize.toolkit.fluxcd.io/ssa": "IfNotPresent"}
    assert "annotations" not in suspended["metadata"]
