"""Overlays: namespace, labels and annotations reach every object but never a selector; a
patch's target selects blueprints by name, glob and label selector.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.overlays import OPERATOR_LABELS, add_blueprint, at, objects_of, overlay, pod_spec, rendered, tree


# --- 1. namespace, labels, annotations ----------------------------------------------------------

def test_namespace_labels_and_annotations_reach_every_object_but_never_selectors():
    add_blueprint("resnet50", namespace="vision", labels={"team": "vision", "env": "from-blueprint"},
                  annotations={"owner": "vision@example.com"}, gpusPerWorker=8)
    add_blueprint("bert", namespace="nlp")
    overlay("prod", """\
        namespace: ml-prod
        labels:
          env: prod
          tier: gold
        annotations:
          example.com/note: on call
        """)
    objects = objects_of(rendered("prod"))
    assert len(objects) == 12
    for (kind, name), obj in objects.items():
        meta = obj["metadata"]
        assert meta["namespace"] == "ml-prod", (kind, name)
        job = name.rsplit("-", 1)[0]
        metas = [meta] + ([obj["spec"]["template"]["metadata"]] if "template" in obj.get("spec", {}) else [])
        for m in metas:
            assert m["labels"]["env"] == "prod"  # the overlay's value wins over the blueprint's
            assert m["labels"]["tier"] == "gold"
            assert m["annotations"]["example.com/note"] == "on call"
            if job == "resnet50":
                assert m["labels"]["team"] == "vision"
                assert m["annotations"]["owner"] == "vision@example.com"
            else:
                assert "team" not in m["labels"] and "owner" not in m["annotations"]
        if kind in ("StatefulSet", "Job"):
            role = "worker" if kind == "StatefulSet" else "launcher"
            operator = {"group_name": "kubeflow.org", "mpi_job_name": job, "mpi_role_type": role}
            for m in metas:
                assert {k: m["labels"][k] for k in OPERATOR_LABELS} == operator
        else:
            assert meta["labels"]["app"] == job
    for job in ("resnet50", "bert"):
        selector = objects[("StatefulSet", f"{job}-worker")]["spec"]["selector"]
        assert selector == {"matchLabels": {"group_name": "kubeflow.org", "mpi_job_name": job,
                                            "mpi_role_type": "worker"}}
        assert objects[("RoleBinding", f"{job}-launcher")]["subjects"][0]["namespace"] == "ml-prod"
        init = pod_spec(objects[("Job", f"{job}-launcher")])["initContainers"][0]
        assert {"name": "NAMESPACE", "value": "ml-prod"} in init["env"]


def test_overlay_cannot_set_an_operator_label(cli):
    add_blueprint("job")
    text = overlay("dev", """\
        labels:
          app: mine
        """)
    done = cli("render", "blueprints", "--overlay", "dev", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    assert done.lines("error") == [
        f"{at('overlays/dev/overlay.yaml', text, 'app: mine', 'app')}: error: metadata.labels: key 'app' is "
        "written by the MPI Operator or mpigen on the rendered objects; choose another key "
        "(applied to blueprints/job.yaml)"]


# --- 3. targets ---------------------------------------------------------------------------------

def _four_blueprints():
    add_blueprint("resnet50", labels={"team": "vision", "tier": "prod"})
    add_blueprint("resnet101", labels={"team": "vision", "tier": "batch"})
    add_blueprint("bert", labels={"team": "nlp"})
    add_blueprint("a")


@pytest.mark.parametrize("target, selected", [
    ({}, {"resnet50", "resnet101", "bert", "a"}),
    ({"name": "resnet*"}, {"resnet50", "resnet101"}),
    ({"name": "?"}, {"a"}),
    ({"name": "[ab]*"}, {"a", "bert"}),
    ({"name": "resnet50"}, {"resnet50"}),
    ({"labelSelector": "team=vision"}, {"resnet50", "resnet101"}),
    ({"labelSelector": "team==nlp"}, {"bert"}),
    ({"labelSelector": "team!=vision"}, {"bert", "a"}),
    ({"labelSelector": "tier in (prod, batch)"}, {"resnet50", "resnet101"}),
    ({"labelSelector": "tier notin (prod)"}, {"resnet101", "bert", "a"}),
    ({"labelSelector": "tier"}, {"resnet50", "resnet101"}),
    ({"labelSelector": "!tier"}, {"bert", "a"}),
    ({"labelSelector": "team=vision,tier!=prod"}, {"resnet101"}),
    ({"labelSelector": "team in (vision,nlp), !tier"}, {"bert"}),
    ({"name": "resnet*", "labelSelector": "tier=batch"}, {"resnet101"}),
    ({"name": "[ab]*", "labelSelector": "team"}, {"bert"}),
], ids=lambda v: json.dumps(v) if isinstance(v, dict) else None)
def test_target_selects_by_name_glob_and_label_selector(target, selected):
    _four_blueprints()
    overlay("x", "patches:\n  - target: " + json.dumps(target) + "\n    patch: {spec: {workers: 7}}\n")
    result = rendered("x")
    replicas = {name[:-len("-worker")]: obj["spec"]["replicas"]
                for (kind, name), obj in objects_of(result).items() if kind == "StatefulSet"}
    assert replicas == {name: 7 if name in selected else 2 for name in ("resnet50", "resnet101", "bert", "a")}
    assert [str(w) for w in result.warnings] == []


def test_target_matching_nothing_is_a_warning_at_the_patch(cli):
    _four_blueprints()
    text = overlay("x", """\
        patches:
          - patch: {spec: {workers: 3}}
          - target: {name: bert, labelSelector: team=vision}
            patch: {spec: {workers: 5}}
        """)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 0, done.stderr
    where = at("overlays/x/overlay.yaml", text, "- target: {name: bert", "target")
    assert done.lines("warning") == [f"{where}: warning: patches[1] selects no blueprint; target.name 'bert' matches "
                                     "bert, whose labels do not match labelSelector 'team=vision'; check its target"]
    assert done.lines("error") == []
    assert {o["spec"]["replicas"] for o in done.objects() if o["kind"] == "StatefulSet"} == {3}


@pytest.mark.parametrize("selector, message", [
    ('"team in (a,"', "cannot read 'team in (a,'"),
    ("a=b,,c", "empty term between commas"),
    ('"a=b,"', "empty term between commas"),
    ('"team in vision"', "cannot read 'team in vision'"),
])
def test_invalid_label_selector_is_an_error_at_its_value(cli, selector, message):
    add_blueprint("job")
    text = overlay("x", f"""\
        patches:
          - target:
              labelSelector: {selector}
            patch: {{spec: {{workers: 3}}}}
        """)
    (Path("out")).mkdir()
    Path("out/README.md").write_text("mine\n")
    done = cli("render", "blueprints", "--overlay", "x", "-o", "out")
    assert done.returncode == 2
    where = at("overlays/x/overlay.yaml", text, "labelSelector: " + selector, selector)
    errors = done.lines("error")
    assert len(errors) == 1 and errors[0].startswith(f"{where}: error: patches[0].target.labelSelector: "), errors
    assert message in errors[0]
    assert tree(Path("out")) == {"README.md": b"mine\n"}


def test_a_bad_selector_is_reported_with_the_overlays_other_errors(cli):
    add_blueprint("job")
    text = overlay("x", """\
        namespce: prod
        patches:
          - target: {labelSelector: "team in (a,"}
            patch: {spec: {workers: 3}}
        """)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    errors = done.lines("error")
    assert len(errors) == 2, errors
    assert errors[0].startswith(f"{at('overlays/x/overlay.yaml', text, 'namespce: prod', 'namespce')}: error: ")
    assert "did you mean 'namespace'" in errors[0]
    assert "patches[0].target.labelSelector: cannot read" in errors[1]
