"""Overlays and mpigen.yaml: what one environment changes in the blueprints, and how a
whole repository is rendered into one folder per overlay.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process (`mpigen.cli.main.main`,
which is what `python -m mpigen` runs); a few tests run the CLI in a subprocess where the
process boundary is the point. Expected values are derived by hand from the input
written here; expected positions are computed from the YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.conftest import blueprint_text, pos, run_mpigen, write

OVERLAY_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
CONFIG_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
OPERATOR_LABELS = ("group_name", "mpi_job_name", "mpi_role_type")
DIGEST = "sha256:" + "0123456789abcdef" * 4


# --- helpers ----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    """Every test works in its own folder, as a user in a repository checkout."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MPIGEN_DEBUG", raising=False)
    return tmp_path




def at(path: str, text: str, needle: str, sub: str | None = None) -> str:
    line, column = pos(text, needle, sub)
    return f"{path}:{line}:{column}"




def overlay(name: str, body: str = "", folder: str = "overlays", file: str = "overlay.yaml") -> str:
    """Writes <folder>/<name>/<file> (an Overlay with `body`, given dedented) and returns its text."""
    return write(f"{folder}/{name}/{file}", OVERLAY_HEAD + textwrap.dedent(body))


blueprint = blueprint_text


def add_blueprint(name: str, **kwargs) -> str:
    return write(f"blueprints/{name}.yaml", blueprint(name, **kwargs))


def rendered(*overlays: str, paths=("blueprints",), **options):
    """Result of rendering `paths` under these overlays, through the real pipeline."""
    from mpigen.overlay.overlays import resolve
    from mpigen.pipeline import render_paths
    from mpigen.render.targets import Options

    found = resolve(list(overlays), Path(".")) if overlays else []
    return render_paths([Path(p) for p in paths], Options(**options), found)


def objects_of(result, env: str | None = None) -> dict[tuple[str, str], dict]:
    """(kind, name) -> object, for one environment."""
    out = {}
    for item in result.objects:
        if env is None or item.env == env:
            obj = yaml.safe_load(item.text)
            key = (obj["kind"], obj["metadata"]["name"])
            assert key not in out
            out[key] = obj
    return out


def pod_spec(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def snapshot(root: Path) -> dict[str, tuple]:
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            state[rel] = ("dir",) if path.is_dir() else ("file", path.read_bytes())
    return state


def key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"]


def index_paths(out: Path) -> set[str]:
    return set(json.loads((out / ".mpigen-index").read_text())["files"])


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


# --- 2. JSON merge patch (RFC 7386) -------------------------------------------------------------

def merge(original: dict, patch: dict) -> dict:
    from mpigen.errors import Mark
    from mpigen.load.documents import Document
    from mpigen.overlay.overlays import _merge_patch, _Patched

    target = Document("target.yaml", original, Mark("target.yaml"))
    source = Document("overlay.yaml", {"patch": patch}, Mark("overlay.yaml"))
    out = _Patched(target)
    _merge_patch(out, (), patch, source, ("patch",))
    return out.data


# RFC 7386, appendix A: the examples whose original and patch are objects.
@pytest.mark.parametrize("original, patch, result", [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    # and on a blueprint's shape
    ({"spec": {"resources": {"worker": {"cpu": "4", "memory": "8Gi"}}}},
     {"spec": {"resources": {"worker": {"memory": "16Gi"}, "launcher": {"cpu": "1"}}}},
     {"spec": {"resources": {"worker": {"cpu": "4", "memory": "16Gi"}, "launcher": {"cpu": "1"}}}}),
    ({"spec": {"command": ["python", "a.py", "--x"], "slotsPerWorker": 2}},
     {"spec": {"command": ["b"], "slotsPerWorker": None, "missing": None}},
     {"spec": {"command": ["b"]}}),
    ({"spec": {"runPolicy": 3}}, {"spec": {"runPolicy": {"backoffLimit": 1, "x": None}}},
     {"spec": {"runPolicy": {"backoffLimit": 1}}}),
], ids=lambda v: json.dumps(v, separators=(",", ":")))
def test_merge_patch_follows_rfc7386(original, patch, result):
    before = json.dumps(original)
    assert merge(original, patch) == result
    assert json.dumps(original) == before  # the blueprint's own data is not changed


def test_merge_patch_on_a_blueprint_merges_maps_replaces_lists_and_removes_nulls():
    add_blueprint("job", namespace="team", gpusPerWorker=2, slotsPerWorker=1,
                  command=["python", "train.py", "--epochs", "90"], env={"A": "1", "B": "2"},
                  resources={"worker": {"cpu": "4", "memory": "8Gi"}, "launcher": {"cpu": "1"}},
                  datasets=[{"name": "d1", "mountPath": "/d1", "pvc": "c1"},
                            {"name": "d2", "mountPath": "/d2", "pvc": "c2"}],
                  runPolicy={"backoffLimit": 3, "activeDeadlineSeconds": 100})
    overlay("dev", """\
        patches:
          - patch:
              spec:
                workers: 3
                slotsPerWorker: null
                command: [python, eval.py]
                env: {B: null, C: "3"}
                resources:
                  worker: {memory: 16Gi}
                datasets:
                  - {name: d3, mountPath: /d3, pvc: c3}
                runPolicy:
                  activeDeadlineSeconds: null
        """)
    objects = objects_of(rendered("dev"))
    workers, launcher = objects[("StatefulSet", "job-worker")], objects[("Job", "job-launcher")]
    assert workers["spec"]["replicas"] == 3
    # slotsPerWorker removed: the default (gpusPerWorker = 2) applies
    assert objects[("ConfigMap", "job-config")]["data"]["hostfile"] == (
        "job-worker-0 slots=2\njob-worker-1 slots=2\njob-worker-2 slots=2\n")
    command = pod_spec(launcher)["containers"][0]["command"]
    assert command[:3] == ["mpirun", "-np", "6"]
    assert command[-2:] == ["python", "eval.py"] and "train.py" not in command
    worker = pod_spec(workers)["containers"][0]
    assert [e["name"] for e in worker["env"]] == ["A", "C"]
    assert worker["resources"]["limits"] == {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "2"}
    assert pod_spec(launcher)["containers"][0]["resources"]["limits"] == {"cpu": "1"}
    # datasets replaced by the patch's list; the GPU job's /dev/shm (1Gi per GPU) stays
    assert [v["name"] for v in pod_spec(workers)["volumes"]] == ["d3", "dshm", "mpi-job-config"]
    assert [m["mountPath"] for m in worker["volumeMounts"]] == ["/d3", "/dev/shm", "/etc/mpi"]
    assert pod_spec(workers)["volumes"][1]["emptyDir"] == {"medium": "Memory", "sizeLimit": "2Gi"}
    assert launcher["spec"]["backoffLimit"] == 3 and "activeDeadlineSeconds" not in launcher["spec"]


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
    assert done.lines("warning") == [f"{where}: warning: patches[1] selects no blueprint; check its target"]
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


# --- 4. images ----------------------------------------------------------------------------------

@pytest.mark.parametrize("image, rewrite, expected", [
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "mirror.example.com/horovod"},
     "mirror.example.com/horovod:0.28.1"),
    ("horovod/horovod", {"name": "horovod/horovod", "newName": "mirror.example.com/horovod"},
     "mirror.example.com/horovod"),
    ("horovod/horovod-extra:1", {"name": "horovod/horovod", "newTag": "2"}, None),
    ("other/horovod/horovod:1", {"name": "horovod/horovod", "newTag": "2"}, None),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newTag": "0.29"}, "horovod/horovod:0.29"),
    ("horovod/horovod", {"name": "horovod/horovod", "newTag": "0.29"}, "horovod/horovod:0.29"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "r.example.com/h", "newTag": "x"},
     "r.example.com/h:x"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "digest": DIGEST}, f"horovod/horovod@{DIGEST}"),
    ("horovod/horovod:0.28.1", {"name": "horovod/horovod", "newName": "r.example.com/h", "digest": DIGEST},
     f"r.example.com/h@{DIGEST}"),
    ("localhost:5000/x:1", {"name": "localhost:5000/x", "newTag": "2"}, "localhost:5000/x:2"),
    ("localhost:5000/x", {"name": "localhost:5000/x", "newName": "reg.example.com/x"}, "reg.example.com/x"),
    ("localhost:5000/x:1", {"name": "localhost:5000/x", "newName": "reg.example.com/x"}, "reg.example.com/x:1"),
    ("localhost:5000/x:1", {"name": "localhost", "newTag": "2"}, None),
])
def test_image_rewrite_matches_the_repository_without_tag(image, rewrite, expected):
    from mpigen.overlay.overlays import ImageRewrite, rewrite_image

    assert rewrite_image(image, ImageRewrite(**rewrite)) == expected


def test_image_rewrites_in_rendered_objects_and_unused_rewrite_warns(cli):
    add_blueprint("h", image="horovod/horovod:0.28.1")
    add_blueprint("extra", image="horovod/horovod-extra:1")
    add_blueprint("local", image="localhost:5000/x:1")
    text = overlay("x", f"""\
        images:
          - name: horovod/horovod
            newName: mirror.example.com/horovod
          - name: localhost:5000/x
            digest: {DIGEST}
          - name: not/used
            newTag: "1"
        """)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 0, done.stderr
    images = {}
    for obj in done.objects():
        if obj["kind"] in ("StatefulSet", "Job"):
            images.setdefault(obj["metadata"]["name"].rsplit("-", 1)[0], set()).add(
                pod_spec(obj)["containers"][0]["image"])
    assert images == {"h": {"mirror.example.com/horovod:0.28.1"}, "extra": {"horovod/horovod-extra:1"},
                      "local": {f"localhost:5000/x@{DIGEST}"}}
    where = at("overlays/x/overlay.yaml", text, "- name: not/used", "name")
    assert done.lines("warning") == [f"{where}: warning: images[2]: no blueprint uses the image not/used"]


@pytest.mark.parametrize("entry, message", [
    (f'- name: horovod/horovod\n    newTag: "1"\n    digest: {DIGEST}\n',
     "images[0]: give newTag or digest, not both"),
    ("- name: horovod/horovod\n", "images[0]: an image rewrite needs newName, newTag or digest"),
], ids=["newTag-and-digest", "nothing-to-do"])
def test_image_rewrite_needs_exactly_one_way_to_pin(cli, entry, message):
    add_blueprint("h", image="horovod/horovod:0.28.1")
    text = overlay("x", "images:\n  " + entry)
    done = cli("render", "blueprints", "--overlay", "x", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    errors = done.lines("error")
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{at('overlays/x/overlay.yaml', text, '- name: horovod', 'name')}: error: {message}")


def test_image_rewrite_applies_after_patches():
    add_blueprint("one", image="horovod/horovod:0.28.1")
    add_blueprint("two", image="example.com/train:1")
    overlay("x", """\
        patches:
          - target: {name: two}
            patch: {spec: {image: "horovod/horovod:0.29"}}
        images:
          - name: horovod/horovod
            newName: mirror.example.com/horovod
        """)
    objects = objects_of(rendered("x"))
    assert pod_spec(objects[("StatefulSet", "one-worker")])["containers"][0]["image"] == \
        "mirror.example.com/horovod:0.28.1"
    assert pod_spec(objects[("Job", "two-launcher")])["containers"][0]["image"] == "mirror.example.com/horovod:0.29"


# --- 5. order -----------------------------------------------------------------------------------

def test_bases_then_namespace_and_labels_then_patches_then_images():
    add_blueprint("one", namespace="team", labels={"layer": "blueprint"})
    add_blueprint("two", namespace="team")
    overlay("base", """\
        namespace: base-ns
        labels: {layer: base, from-base: "yes"}
        patches:
          - patch: {spec: {workers: 3}}
        images:
          - name: example.com/train
            newName: base.example.com/train
        """)
    overlay("top", """\
        bases: [base]
        namespace: top-ns
        labels: {layer: top}
        patches:
          - target: {name: one}
            patch: {spec: {workers: 5}}
          - target: {name: two}
            patch:
              metadata: {namespace: special}
              spec: {image: "example.com/train:7"}
        images:
          - name: example.com/train
            newName: mirror.example.com/train
        """)
    result = rendered("top")
    assert result.warnings == []
    objects = objects_of(result)
    one, two = objects[("StatefulSet", "one-worker")], objects[("StatefulSet", "two-worker")]
    assert one["metadata"]["namespace"] == "top-ns"      # the overlay's namespace after its base's
    assert two["metadata"]["namespace"] == "special"     # a patch after the overlay's namespace
    for obj in (one, two):
        assert obj["metadata"]["labels"]["layer"] == "top"
        assert obj["metadata"]["labels"]["from-base"] == "yes"
    assert one["spec"]["replicas"] == 5 and two["spec"]["replicas"] == 3
    # one: rewritten by the base (before top's patches); two: its image comes from top's
    # patch, after the base ran, and top's rewrite applies after top's patches.
    assert pod_spec(one)["containers"][0]["image"] == "base.example.com/train:1"
    assert pod_spec(two)["containers"][0]["image"] == "mirror.example.com/train:7"


def test_diamond_applies_a_shared_base_once_in_order():
    add_blueprint("job")
    overlay("base", """\
        labels: {count: base}
        patches:
          - patch: {spec: {workers: 9, env: {FROM_BASE: "1"}}}
        """)
    overlay("left", """\
        bases: [base]
        patches:
          - patch: {spec: {workers: 5}}
        """)
    overlay("right", """\
        bases: [../base]
        labels: {right: "yes"}
        """)
    overlay("top", "bases: [left, right]\n")
    from mpigen.overlay.overlays import resolve

    (top,) = resolve(["top"], Path("."))
    assert [o.name for o in top.chain()] == ["base", "left", "right", "top"]
    objects = objects_of(rendered("top"))
    workers = objects[("StatefulSet", "job-worker")]
    # base, left, right, top: base is not applied again after left (which would give 9)
    assert workers["spec"]["replicas"] == 5
    assert workers["metadata"]["labels"]["right"] == "yes" and workers["metadata"]["labels"]["count"] == "base"
    assert pod_spec(workers)["containers"][0]["env"] == [{"name": "FROM_BASE", "value": "1"}]


# --- 6. errors with positions -------------------------------------------------------------------

@pytest.fixture
def previous(cli):
    """An -o folder as a user has it: a README and an earlier render of one blueprint."""
    write("seed/seed.yaml", blueprint("seed"))
    assert cli("render", "seed", "-o", "out").returncode == 0
    write("out/README.md", "# manifests\n")
    return snapshot(Path("out"))


def refused(cli, previous, *args: str) -> list[str]:
    """Runs `mpigen render ARGS -o out` and `... --stdout`: both exit 2, print nothing on
    stdout and leave out/ as it was. Returns the error lines (the same for both)."""
    seen = []
    for where in (("-o", "out"), ("--stdout",)):
        done = cli("render", *args, *where)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        assert done.stdout == b""
        assert snapshot(Path("out")) == previous
        seen.append(done.lines("error"))
    assert seen[0] == seen[1]
    return seen[0]


def test_missing_base_is_an_error_at_the_bases_item(cli, previous):
    add_blueprint("job")
    text = overlay("dev", "bases: [common, nowhere]\n")
    overlay("common", "namespace: x\n")
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, 'nowhere')}: error: overlay overlays/nowhere not found; an "
        "overlay is a folder under overlays/ holding one file of kind Overlay"]


def test_base_cycle_is_an_error_at_the_bases_item_that_closes_it(cli, previous):
    add_blueprint("job")
    overlay("a", "bases: [b]\n")
    overlay("b", "bases:\n  - c\n")
    text = overlay("c", "bases:\n  - ../a\n")
    assert refused(cli, previous, "blueprints", "--overlay", "a") == [
        f"{at('overlays/c/overlay.yaml', text, '../a')}: error: overlay bases form a cycle: a -> b -> c -> a; "
        "remove one of the bases"]


def test_self_base_is_a_cycle(cli, previous):
    add_blueprint("job")
    text = overlay("a", "bases: [a]\n")
    errors = refused(cli, previous, "blueprints", "--overlay", "a")
    assert errors == [f"{at('overlays/a/overlay.yaml', text, '[a]', 'a')}: error: overlay bases form a cycle: "
                      "a -> a; remove one of the bases"]


def test_unknown_key_in_an_overlay_suggests_the_right_one(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        namspace: dev
        patches:
          - target: {nmae: job}
            patch: {spec: {workers: 1}}
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, 'namspace')}: error: document: unknown key 'namspace'; "
        "did you mean 'namespace'?",
        f"{at('overlays/dev/overlay.yaml', text, 'nmae')}: error: patches[0].target: unknown key 'nmae'; "
        "did you mean 'name'?"]


PATCH_BREAKS = [
    ("workers: 0", "0", "spec.workers: must be >= 1, got 0"),
    ("gpuResource: gpu", "gpu", "spec.gpuResource: 'gpu' is not an extended resource"),
]


@pytest.mark.parametrize("line, sub, message", PATCH_BREAKS, ids=["workers-0", "gpuResource-gpu"])
def test_patch_that_breaks_a_blueprint_is_reported_in_the_overlay(cli, previous, line, sub, message):
    add_blueprint("one")
    add_blueprint("two")
    text = overlay("dev", f"""\
        patches:
          - patch:
              spec:
                {line}
        """)
    where = at("overlays/dev/overlay.yaml", text, line + "\n", sub + "\n")  # the value
    errors = refused(cli, previous, "blueprints", "--overlay", "dev")
    assert [e.split(": error: ")[0] for e in errors] == [where, where]
    for error, name in zip(errors, ("one", "two")):
        assert message in error and error.endswith(f" (applied to blueprints/{name}.yaml)"), error


def test_patched_toleration_is_checked_at_the_overlay(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        patches:
          - patch:
              spec:
                placement:
                  worker:
                    tolerations:
                      - key: nvidia.com/gpu
                        operator: Exists
                        effect: NoSchedule
                      - key: pool
                        operator: Exists
                        value: a100
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, '- key: pool', 'key')}: error: "
        "spec.placement.worker.tolerations[1]: a toleration with operator Exists takes no value; remove value "
        "or use operator Equal (applied to blueprints/job.yaml)"]


def test_patch_removing_a_required_key_is_reported_in_the_overlay(cli, previous):
    add_blueprint("job")
    text = overlay("dev", """\
        patches:
          - patch:
              spec:
                workers: null
        """)
    errors = refused(cli, previous, "blueprints", "--overlay", "dev")
    assert len(errors) == 1, errors
    line = pos(text, "workers: null")[0]
    assert errors[0].startswith(f"overlays/dev/overlay.yaml:{line}:"), errors
    assert "workers" in errors[0] and errors[0].endswith("(applied to blueprints/job.yaml)"), errors


@pytest.mark.parametrize("field", ["kind", "apiVersion"])
def test_kind_and_apiversion_cannot_be_patched(cli, previous, field):
    add_blueprint("job")
    text = overlay("dev", f"""\
        patches:
          - patch:
              {field}: Other
        """)
    assert refused(cli, previous, "blueprints", "--overlay", "dev") == [
        f"{at('overlays/dev/overlay.yaml', text, field + ': Other', field)}: error: patches[0].patch: {field} "
        "cannot be patched"]


def test_a_blueprint_error_is_reported_once_at_the_blueprint_under_two_overlays(cli, previous):
    text = write("blueprints/job.yaml", textwrap.dedent("""\
        apiVersion: mpigen.dev/v1alpha1
        kind: MPIJobBlueprint
        metadata:
          name: job
        spec:
          image: example.com/train:1
          workers: 0
          command: [python, train.py]
        """))
    overlay("dev", "namespace: dev\n")
    overlay("prod", "namespace: prod\nlabels: {env: prod}\n")
    assert refused(cli, previous, "blueprints", "--overlay", "dev", "--overlay", "prod") == [
        f"{at('blueprints/job.yaml', text, 'workers: 0', '0')}: error: spec.workers: must be >= 1, got 0"]


@pytest.mark.parametrize("files, found", [((), "none"), (("a.yaml", "b.yml"), "a.yaml, b.yml")],
                         ids=["no-yaml-file", "two-yaml-files"])
def test_overlay_folder_must_hold_exactly_one_yaml_file(cli, previous, files, found):
    add_blueprint("job")
    Path("overlays/odd").mkdir(parents=True)
    Path("overlays/odd/README.md").write_text("notes\n")
    for name in files:
        Path("overlays/odd", name).write_text(OVERLAY_HEAD)
    assert refused(cli, previous, "blueprints", "--overlay", "odd") == [
        f"error: overlays/odd: overlay folder overlays/odd must hold exactly one YAML file (the Overlay); "
        f"found: {found}"]


# --- 7. --overlay on the command line -----------------------------------------------------------

def test_overlay_by_name_folder_and_file_stream_in_the_order_given():
    write("blueprints/job.yaml", blueprint_text("job"))
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: staging\n", folder="envs")
    overlay("prod", "namespace: prod\n", folder="elsewhere", file="prod.yml")
    done = run_mpigen("render", "blueprints", "--overlay", "elsewhere/prod/prod.yml", "--overlay", "dev",
                      "--overlay", "envs/staging", "--stdout", cwd=Path.cwd())
    assert done.returncode == 0, done.stderr.decode()
    text = done.stdout.decode()
    sources = [line for line in text.splitlines() if line.startswith("# Source:")]
    expected = [f"# Source: blueprints/job.yaml, {path}" for path in
                ("elsewhere/prod/prod.yml", "overlays/dev/overlay.yaml", "envs/staging/overlay.yaml")]
    assert len(sources) == 18
    assert sources == [expected[0]] * 6 + [expected[1]] * 6 + [expected[2]] * 6
    namespaces = [o["metadata"]["namespace"] for o in yaml.safe_load_all(text) if o]
    assert namespaces == ["prod"] * 6 + ["dev"] * 6 + ["staging"] * 6


def test_output_folders_are_named_after_the_overlay_folders(cli):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: st\n", folder="envs")
    done = cli("render", "blueprints", "--overlay", "dev", "--overlay", "envs/staging/overlay.yaml", "-o", "out")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in Path("out").iterdir()) == [".mpigen-index", "dev", "staging"]
    assert (Path("out/dev/dev/job-job-launcher.yaml")).is_file()
    assert (Path("out/staging/st/job-job-launcher.yaml")).is_file()


def test_two_overlays_with_the_same_folder_name_are_an_error(cli, previous):
    add_blueprint("job")
    overlay("dev", "namespace: a\n")
    text = overlay("dev", "namespace: b\n", folder="team")
    errors = refused(cli, previous, "blueprints", "--overlay", "dev", "--overlay", "team/dev")
    assert errors == [f"{at('team/dev/overlay.yaml', text, 'apiVersion')}: error: two overlays are named 'dev' "
                      "(also overlays/dev/overlay.yaml); an overlay's folder name names its output folder, so it "
                      "must be unique"]


def test_unknown_overlay_is_an_error(cli, previous):
    add_blueprint("job")
    assert refused(cli, previous, "blueprints", "--overlay", "nope") == [
        "error: overlays/nope: no such overlay; an overlay is a folder under overlays/ holding one file of "
        "kind Overlay"]


def test_the_same_overlay_named_twice_is_rendered_once(cli):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    streamed = cli("render", "blueprints", "--overlay", "dev", "--overlay", "overlays/dev/overlay.yaml", "--stdout")
    written = cli("render", "blueprints", "--overlay", "dev", "--overlay", "overlays/dev/overlay.yaml", "-o", "out")
    for done in (streamed, written):
        assert done.returncode in (0, 2), done.stderr
        assert "internal error" not in done.stderr
    if streamed.returncode == 0:
        assert len(streamed.objects()) == 6


# --- 8. mpigen.yaml -----------------------------------------------------------------------------

def _repository(overlays=("dev", "prod"), extra: str = "") -> None:
    add_blueprint("one", namespace="team")
    add_blueprint("two", namespace="team")
    overlay("dev", "namespace: dev\npatches:\n  - patch: {spec: {workers: 1}}\n")
    overlay("prod", "labels: {env: prod}\n")
    write("mpigen.yaml", CONFIG_HEAD + f"blueprints: [blueprints]\noverlays: [{', '.join(overlays)}]\n"
                                       f"output: out\n{extra}")


def test_whole_repository_renders_each_overlay_into_its_own_kustomize_root(cli):
    _repository()
    done = cli("render")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    out = Path("out")
    assert sorted(p.name for p in out.iterdir()) == [".mpigen-index", "dev", "prod"]
    for env, namespace in (("dev", "dev"), ("prod", "team")):
        files = {p.relative_to(out / env).as_posix() for p in (out / env).rglob("*") if p.is_file()}
        kustomization = yaml.safe_load((out / env / "kustomization.yaml").read_text())
        assert kustomization["kind"] == "Kustomization"
        assert sorted(kustomization["resources"]) == sorted(files - {"kustomization.yaml"})
        assert len(kustomization["resources"]) == 12
        assert all(path.startswith(f"{namespace}/") for path in kustomization["resources"])
    dev_workers = yaml.safe_load((out / "dev/dev/statefulset-one-worker.yaml").read_text())
    assert dev_workers["spec"]["replicas"] == 1
    assert index_paths(out) == {p.relative_to(out).as_posix() for p in out.rglob("*")
                                if p.is_file() and p.name != ".mpigen-index"}


def test_command_line_output_and_overlay_win_over_mpigen_yaml(cli):
    _repository()
    done = cli("render", "-o", "elsewhere")
    assert done.returncode == 0, done.stderr
    assert not Path("out").exists()
    assert sorted(p.name for p in Path("elsewhere").iterdir()) == [".mpigen-index", "dev", "prod"]
    streamed = cli("render", "--overlay", "prod", "--stdout")
    assert streamed.returncode == 0, streamed.stderr
    sources = {line for line in streamed.stdout.decode().splitlines() if line.startswith("# Source:")}
    assert sources == {"# Source: blueprints/one.yaml, overlays/prod/overlay.yaml",
                       "# Source: blueprints/two.yaml, overlays/prod/overlay.yaml"}


def _delivery_images(objects) -> set[str]:
    return {pod_spec(o)["initContainers"][0]["image"] for o in objects if o["kind"] == "Job"}


def test_command_line_options_win_over_mpigen_yaml_defaults(cli):
    _repository(extra="target: static\ngitops: none\nkubectlDeliveryImage: registry.example.com/kd:1\n")
    from_config = cli("render", "--stdout")
    assert from_config.returncode == 0, from_config.stderr
    assert _delivery_images(from_config.objects()) == {"registry.example.com/kd:1"}
    flagged = cli("render", "--stdout", "--kubectl-delivery-image", "registry.example.com/kd:2",
                  "--target", "static", "--gitops", "none")
    assert flagged.returncode == 0, flagged.stderr
    assert _delivery_images(flagged.objects()) == {"registry.example.com/kd:2"}
    written = cli("render")
    assert written.returncode == 0
    job = yaml.safe_load(Path("out/prod/team/job-one-launcher.yaml").read_text())
    assert _delivery_images([job]) == {"registry.example.com/kd:1"}


def test_target_and_gitops_flags_win_over_mpigen_yaml(monkeypatch):
    """Only one target and one GitOps profile exist today, so precedence is checked on
    what _setup picks, with a second value allowed for the test."""
    import mpigen.render.targets
    from mpigen.cli.main import _parser, _setup

    monkeypatch.setattr(mpigen.render.targets, "TARGETS", ("static", "other"))
    monkeypatch.setattr(mpigen.render.targets, "GITOPS_PROFILES", ("none", "argocd"))
    _repository(extra="target: other\ngitops: argocd\n")
    options = _setup(_parser().parse_args(["render", "--stdout"])).options
    assert (options.target, options.gitops) == ("other", "argocd")
    options = _setup(_parser().parse_args(["render", "--stdout", "--target", "static", "--gitops", "none"])).options
    assert (options.target, options.gitops) == ("static", "none")


def test_explicit_paths_use_the_config_options_but_not_its_overlays(cli):
    _repository(extra="kubectlDeliveryImage: registry.example.com/kd:1\n")
    done = cli("render", "blueprints/one.yaml", "--stdout")
    assert done.returncode == 0, done.stderr
    objects = done.objects()
    assert len(objects) == 6
    assert {o["metadata"]["namespace"] for o in objects} == {"team"}
    assert "env" not in objects[0]["metadata"]["labels"]
    assert {line for line in done.stdout.decode().splitlines() if line.startswith("# Source:")} == {
        "# Source: blueprints/one.yaml"}
    assert _delivery_images(objects) == {"registry.example.com/kd:1"}
    with_overlay = cli("render", "blueprints/one.yaml", "--overlay", "dev", "--stdout")
    assert {o["metadata"]["namespace"] for o in with_overlay.objects()} == {"dev"}


@pytest.mark.parametrize("config, needle, sub, message", [
    (CONFIG_HEAD + "blueprints: [blueprints]\nouptut: out\n", "ouptut", None,
     "document: unknown key 'ouptut'; did you mean 'output'?"),
    (CONFIG_HEAD + "output: out\ntarget: helm\n", "target: helm", "helm", "target: 'helm' is not one of static, mpijob"),
    ("# the repository\napiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n", "apiVersion", None,
     "mpigen.yaml holds one document with apiVersion: mpigen.dev/v1alpha1 and kind: Config"),
], ids=["unknown-key", "bad-target", "wrong-kind"])
def test_invalid_mpigen_yaml_is_an_error_with_position(cli, config, needle, sub, message):
    add_blueprint("job")
    write("mpigen.yaml", config)
    for args in (("render",), ("render", "--stdout"), ("render", "blueprints", "-o", "out")):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == b""
        assert done.lines("error") == [f"{at('mpigen.yaml', config, needle, sub)}: error: {message}"]
    assert not Path("out").exists()


def test_without_mpigen_yaml_the_output_must_be_given(cli):
    add_blueprint("job")
    done = cli("render")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith("mpigen: error: ") and "--stdout" in done.stderr
    assert sorted(p.name for p in Path(".").iterdir()) == ["blueprints"]


# --- 9. output scope ----------------------------------------------------------------------------

def test_removing_an_overlay_from_mpigen_yaml_removes_its_folder_but_not_foreign_files(cli):
    _repository()
    assert cli("render").returncode == 0
    write("out/README.md", "mine\n")
    write("out/prod/NOTES.md", "mine too\n")
    _repository(overlays=("dev",))
    done = cli("render")
    assert done.returncode == 0, done.stderr
    files = tree(Path("out"))
    assert not [p for p in files if p.startswith("prod/") and p != "prod/NOTES.md"]
    assert files["README.md"] == b"mine\n" and files["prod/NOTES.md"] == b"mine too\n"
    assert sorted(p.name for p in Path("out/prod").iterdir()) == ["NOTES.md"]
    assert index_paths(Path("out")) == {p for p in files if p.startswith("dev/")}


def _render_dev_only_keeps_prod(cli, *args):
    _repository()
    assert cli("render").returncode == 0
    write("out/README.md", "mine\n")
    before = tree(Path("out"))
    prod_before = {p: d for p, d in before.items() if p.startswith("prod/")}
    overlay("dev", "namespace: dev\npatches:\n  - patch: {spec: {workers: 3}}\n")
    done = cli("render", *args)
    assert done.returncode == 0, done.stderr
    after = tree(Path("out"))
    assert {p: d for p, d in after.items() if p.startswith("prod/")} == prod_before
    assert after["README.md"] == b"mine\n"
    changed = sorted(p for p in after if p.startswith("dev/") and after[p] != before.get(p))
    assert changed == ["dev/dev/configmap-one-config.yaml", "dev/dev/configmap-two-config.yaml",
                       "dev/dev/job-one-launcher.yaml", "dev/dev/job-two-launcher.yaml",
                       "dev/dev/role-one-launcher.yaml", "dev/dev/role-two-launcher.yaml",
                       "dev/dev/statefulset-one-worker.yaml", "dev/dev/statefulset-two-worker.yaml"]
    assert yaml.safe_load(Path("out/dev/dev/statefulset-one-worker.yaml").read_text())["spec"]["replicas"] == 3
    assert index_paths(Path("out")) == {p for p in after if p.startswith(("dev/", "prod/"))}
    assert len([p for p in index_paths(Path("out")) if p.startswith("prod/")]) == 13


def test_rendering_one_overlay_into_the_same_folder_keeps_the_others(cli):
    _render_dev_only_keeps_prod(cli, "blueprints", "--overlay", "dev", "-o", "out")


@pytest.mark.parametrize("args", [("--overlay", "dev"), ("--overlay", "dev", "-o", "out")],
                         ids=["config-output", "same-output"])
def test_rendering_one_overlay_of_the_repository_keeps_the_others(cli, args):
    _render_dev_only_keeps_prod(cli, *args)


# --- 10. kubectl kustomize ----------------------------------------------------------------------

def test_kustomize_builds_each_overlay_folder_as_its_stream(cli, kubectl):
    _repository()
    overlay("prod", """\
        bases: [pool]
        labels: {env: prod}
        images:
          - name: example.com/train
            newName: mirror.example.com/train
        """)
    overlay("pool", """\
        patches:
          - target: {name: one}
            patch:
              spec:
                placement:
                  worker:
                    nodeSelector: {pool: a100}
                    tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
        """)
    assert cli("render").returncode == 0
    for env in ("dev", "prod"):
        built = subprocess.run([kubectl, "kustomize", f"out/{env}"], capture_output=True, text=True, check=True)
        streamed = cli("render", "--overlay", env, "--stdout")
        assert streamed.returncode == 0, streamed.stderr
        expected = sorted(streamed.objects(), key=key)
        assert len(expected) == 12
        assert sorted((o for o in yaml.safe_load_all(built.stdout) if o), key=key) == expected


# --- 11. placement ------------------------------------------------------------------------------

PLACEMENT = {
    "worker": {"nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge", "pool": "a100"},
               "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                               {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoExecute",
                                "tolerationSeconds": 60},
                               {"operator": "Exists"}]},
    "launcher": {"nodeSelector": {"pool": "cpu"}},
}


def test_placement_is_rendered_into_the_pod_specs():
    add_blueprint("job", placement=PLACEMENT, gpusPerWorker=8)
    objects = objects_of(rendered(paths=("blueprints",)))
    workers = pod_spec(objects[("StatefulSet", "job-worker")])
    launcher = pod_spec(objects[("Job", "job-launcher")])
    assert workers["nodeSelector"] == PLACEMENT["worker"]["nodeSelector"]
    assert workers["tolerations"] == PLACEMENT["worker"]["tolerations"]
    assert launcher["nodeSelector"] == {"pool": "cpu"}
    assert "tolerations" not in launcher


def test_placement_from_an_overlay_replaces_lists_and_merges_node_selectors():
    add_blueprint("job", placement=PLACEMENT)
    overlay("x", """\
        patches:
          - patch:
              spec:
                placement:
                  worker:
                    nodeSelector: {pool: h100, node.kubernetes.io/instance-type: null}
                    tolerations: [{key: pool, operator: Equal, value: h100}]
                  launcher:
                    tolerations: [{operator: Exists, effect: NoSchedule}]
        """)
    objects = objects_of(rendered("x"))
    workers = pod_spec(objects[("StatefulSet", "job-worker")])
    launcher = pod_spec(objects[("Job", "job-launcher")])
    assert workers["nodeSelector"] == {"pool": "h100"}
    assert workers["tolerations"] == [{"key": "pool", "operator": "Equal", "value": "h100"}]
    assert launcher["nodeSelector"] == {"pool": "cpu"}
    assert launcher["tolerations"] == [{"operator": "Exists", "effect": "NoSchedule"}]


PLACEMENT_BLUEPRINT = textwrap.dedent("""\
    apiVersion: mpigen.dev/v1alpha1
    kind: MPIJobBlueprint
    metadata:
      name: job
    spec:
      image: example.com/train:1
      workers: 2
      command: [python, train.py]
      placement:
        worker:
          tolerations:
            - key: nvidia.com/gpu
              operator: Exists
              effect: NoSchedule
            - TOLERATION
    """)


@pytest.mark.parametrize("toleration, message", [
    ("{key: pool, operator: Exists, value: a100}",
     "a toleration with operator Exists takes no value; remove value or use operator Equal"),
    ("{operator: Equal, value: a100}",
     "a toleration without a key must have operator: Exists (it then tolerates every taint)"),
    ("{value: a100}", "a toleration without a key must have operator: Exists (it then tolerates every taint)"),
    ("{key: pool, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}",
     "tolerationSeconds only applies to effect: NoExecute"),
    ("{key: pool, operator: Exists, tolerationSeconds: 30}", "tolerationSeconds only applies to effect: NoExecute"),
], ids=["exists-with-value", "no-key-equal", "no-key-no-operator", "seconds-noschedule", "seconds-no-effect"])
def test_toleration_rules_are_checked_with_positions(cli, toleration, message):
    text = write("blueprints/job.yaml", PLACEMENT_BLUEPRINT.replace("TOLERATION", toleration))
    done = cli("validate", "blueprints")
    assert done.returncode == 2
    assert done.lines("error") == [f"{at('blueprints/job.yaml', text, '- ' + toleration, toleration)}: error: "
                                   f"spec.placement.worker.tolerations[1]: {message}"]


def test_rendered_objects_with_placement_validate_against_kubernetes():
    from tests.support.kubernetes_schema import validate

    add_blueprint("job", placement=PLACEMENT, gpusPerWorker=8)
    overlay("x", """\
        namespace: prod
        labels: {env: prod}
        annotations: {example.com/note: x}
        patches:
          - patch:
              spec:
                placement:
                  launcher:
                    tolerations: [{key: cpu-only, operator: Equal, value: "yes", effect: PreferNoSchedule}]
        """)
    objects = [yaml.safe_load(item.text) for item in rendered("x").objects]
    assert len(objects) == 6
    for obj in objects:
        validate(obj)
