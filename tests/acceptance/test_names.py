"""Issue 15, defects 1 (names at the door), 3 (generated names), 6 (quantities), 8 (an
overlay folder named .mpigen-index) and 11 (--kubectl-delivery-image).

The rules come from outside mpigen:
- Kubernetes names: k8s.io/apimachinery pkg/util/validation/validation.go (dns1123LabelFmt,
  DNS1123LabelMaxLength = 63, dns1123SubdomainFmt, DNS1123SubdomainMaxLength = 253,
  dns1035LabelFmt) and pkg/api/validate/content/kube.go (labelValueFmt,
  LabelValueMaxLength = 63); Argo CD's tracking label and Flux's name label carry the
  names of Applications and Kustomizations, so those are label values too
  (shared/reference/gitops.md B.8, C);
- quantities: apimachinery pkg/api/resource/quantity.go ("no quantity may represent a
  number greater than 2^63-1"; the exponent is read by strconv.ParseInt);
- image references: github.com/distribution/reference, regexp.go and the cases of
  reference_test.go (TestReferenceParse).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, blueprint_text, pos, run_mpigen, write

# k8s.io/apimachinery/pkg/util/validation/validation.go
DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
# k8s.io/apimachinery/pkg/api/validate/content/kube.go
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
QUALIFIED_NAME = re.compile(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                            r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")


def is_label(name: str) -> bool:
    return len(name) <= 63 and DNS1123_LABEL.fullmatch(name) is not None


def is_subdomain(name: str) -> bool:
    return len(name) <= 253 and DNS1123_SUBDOMAIN.fullmatch(name) is not None


def blueprint(name: str = "job", namespace: str = "ns", **spec) -> str:
    return blueprint_text(name, namespace=namespace, **spec)


def overlay_text(body: str = "") -> str:
    return "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n" + body


def folder_state(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def one_error(done) -> str:
    """The single line of stderr of a refused run (exit 2, nothing on stdout)."""
    stderr = done.stderr.decode("utf-8")
    assert done.returncode == 2, stderr
    assert done.stdout == b"" and "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


# --- defect 1, source side: nothing unprintable reaches the output ------------------------

UNPRINTABLE = {"newline": "\n", "carriage-return": "\r", "escape": "\x1b", "delete": "\x7f",
               "line-separator": "\u2028", "right-to-left-override": "\u202e", "tab": "\t"}


@pytest.mark.parametrize("char", UNPRINTABLE.values(), ids=UNPRINTABLE.keys())
def test_a_blueprint_path_with_an_unprintable_character_is_refused(tmp_path, char):
    name = f"x{char}y.yaml"
    write(tmp_path / "bp" / name, blueprint())
    for command in (["render", "bp", "-o", "out"], ["render", "bp", "--stdout"], ["validate", "bp"]):
        line = one_error(run_mpigen(*command, cwd=tmp_path))
        assert line.startswith(f"error: bp/{repr(name)[1:-1]}: the path contains the character "), line
    assert not (tmp_path / "out").exists()


def test_an_undecodable_file_name_is_refused(tmp_path):
    (tmp_path / "bp").mkdir()
    with open(os.fsencode(tmp_path / "bp") + b"/x\xffy.yaml", "wb") as handle:
        handle.write(blueprint().encode())
    line = one_error(run_mpigen("render", "bp", "-o", "out", cwd=tmp_path))
    assert line.startswith(r"error: bp/x\udcffy.yaml: the path contains the character \udcff"), line
    assert not (tmp_path / "out").exists()


BAD_OVERLAY_NAMES = {
    "newline": "a\nb", "index-forgery": "x\n" + "0" * 64 + "  victim.txt", "escape": "a\x1bb",
    "the-index": ".mpigen-index", "the-kustomization": "kustomization.yaml", "dotfile": ".hidden",
    "backslash": "a\\b", "leading-dash": "-dev", "trailing-dot": "dev.", "space": "pro d", "non-ascii": "pröd",
    "too-long": "x" * 64,
}


@pytest.mark.parametrize("name", BAD_OVERLAY_NAMES.values(), ids=BAD_OVERLAY_NAMES.keys())
def test_an_overlay_folder_that_cannot_name_an_output_folder_is_refused(tmp_path, name):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    write(tmp_path / "out" / "victim.txt", "the user's\n")
    assert run_mpigen("render", "-o", "out", cwd=tmp_path).returncode == 0  # the output folder's previous state
    before = folder_state(tmp_path / "out")
    line = one_error(run_mpigen("render", "--overlay", f"overlays/{name}", "-o", "out", cwd=tmp_path))
    shown = name if name.isprintable() else repr(name)[1:-1]
    assert line.startswith(f"error: overlays/{shown}: "), line
    assert folder_state(tmp_path / "out") == before


def test_an_overlay_named_mpigen_index_in_mpigen_yaml_is_exit_2(tmp_path):
    """The case of defect 8: the whole repository, as mpigen.yaml lists it."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / ".mpigen-index" / "overlay.yaml", overlay_text())
    write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"
                                    "overlays: [overlays/.mpigen-index]\noutput: out\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line == ("error: overlays/.mpigen-index: '.mpigen-index' is a file of the output folder; rename the "
                    "overlay folder")
    assert not (tmp_path / "out").exists()


def test_overlay_names_that_are_label_values_are_rendered(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    for name in ("Prod_EU", "prod.eu", "x" * 63):
        write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    done = run_mpigen("render", "--overlay", "Prod_EU", "--overlay", "prod.eu", "--overlay", "x" * 63, "-o", "out",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [".mpigen-index", "Prod_EU", "prod.eu", "x" * 63]


def test_overlays_that_differ_only_in_case_are_refused(tmp_path):
    """macOS and Windows would write both into one output folder."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    write(tmp_path / "overlays" / "prod" / "overlay.yaml", overlay_text())
    text = write(tmp_path / "overlays" / "Prod" / "overlay.yaml", overlay_text())
    line = one_error(run_mpigen("render", "--overlay", "prod", "--overlay", "Prod", "--stdout", cwd=tmp_path))
    line_no, column = pos(text, "apiVersion")
    assert line.startswith(f"overlays/Prod/overlay.yaml:{line_no}:{column}: error: overlays 'prod' "
                           "(overlays/prod/overlay.yaml) and 'Prod' differ only in case"), line


def test_a_diagnostic_is_one_line_whatever_the_input_holds(tmp_path):
    """A path in a message is escaped as well, so a line of stderr cannot be forged."""
    write(tmp_path / "bp" / "job.yaml", blueprint())
    line = one_error(run_mpigen("render", "bp", "--stdout", "--overlay", "nope\nbp/job.yaml:1:1: error: forged",
                                cwd=tmp_path))
    assert line.startswith(r"error: nope\nbp/job.yaml:1:1: error: forged: no such overlay"), line


# --- defect 3: every generated name is valid and unique -----------------------------------

CONFIG = """apiVersion: mpigen.dev/v1alpha1
kind: Config
blueprints: [blueprints]
overlays: {overlays}
output: deploy
gitops: {gitops}
argocd: {{repoURL: "https://git.example.com/ml.git", applications: clusters/argocd}}
flux: {{kustomizations: clusters/flux}}
"""


def repository(tmp_path, jobs: list[tuple[str, str]], overlays: list[str], gitops: str) -> Path:
    for name, namespace in jobs:
        write(tmp_path / "blueprints" / namespace / f"{name}.yaml", blueprint(name, namespace))
    for name in overlays:
        write(tmp_path / "overlays" / name / "overlay.yaml", overlay_text())
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays=json.dumps(overlays), gitops=gitops))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def documents(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def kustomizations(repo: Path) -> list[dict]:
    return [d for p in sorted((repo / "clusters" / "flux").glob("kustomizations*.yaml")) for d in documents(p)]


def test_flux_kustomizations_of_jobs_whose_plain_join_meets_are_distinct(tmp_path):
    """Job c in namespace a-b and job b-c in namespace a: 'mpigen-a-b-c' for both before."""
    repo = repository(tmp_path, [("c", "a-b"), ("b-c", "a")], ["dev"], "flux")
    docs = kustomizations(repo)
    names = [d["metadata"]["name"] for d in docs]
    assert len(docs) == 4 and len(set(names)) == 4, names
    assert all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names
    # Each pair applies its own job's folders, the launcher's after the workers'.
    for doc in docs:
        role = "launcher" if doc["spec"].get("dependsOn") else "workers"
        namespace, job = doc["spec"]["path"].split("/")[-3:-1]
        assert doc["spec"]["path"] == f"./deploy/dev/{namespace}/{job}/{role}"
        if role == "launcher":
            workers = next(d for d in docs if d["spec"]["path"] == f"./deploy/dev/{namespace}/{job}/workers")
            assert doc["spec"]["dependsOn"] == [{"name": workers["metadata"]["name"]}]
    assert {tuple(d["spec"]["path"].split("/")[-3:-1]) for d in docs} == {("a-b", "c"), ("a", "b-c")}


def test_names_without_a_dash_in_overlay_and_namespace_keep_their_plain_join(tmp_path):
    """Existing deployments keep the names of their Kustomizations and Applications."""
    repo = repository(tmp_path, [("mpich-pi", "hpc")], ["dev"], "flux")
    assert sorted(d["metadata"]["name"] for d in kustomizations(repo)) == [
        "mpigen-dev-hpc-mpich-pi-launcher", "mpigen-dev-hpc-mpich-pi-workers"]


def test_an_overlay_that_is_not_a_dns_label_gets_a_valid_application_name(tmp_path):
    repo = repository(tmp_path, [("job", "ns")], ["Prod_EU", "prod-eu", "prod"], "argocd")
    apps = [d for p in sorted((repo / "clusters" / "argocd").glob("application-*.yaml")) for d in documents(p)]
    names = {d["spec"]["source"]["path"]: d["metadata"]["name"] for d in apps}
    assert set(names) == {"deploy/Prod_EU", "deploy/prod-eu", "deploy/prod"}
    assert len(set(names.values())) == 3, names
    assert all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names.values()), names
    assert names["deploy/prod"] == "mpigen-prod"


def test_long_inputs_give_short_distinct_names(tmp_path):
    """63-character overlay and namespace, jobs that differ only in their last character."""
    namespace, env = "n" * 63, "e" * 63
    jobs = [("j" * 40 + "-1", namespace), ("j" * 40 + "-2", namespace)]
    repo = repository(tmp_path, jobs, [env], "flux")
    names = [d["metadata"]["name"] for d in kustomizations(repo)]
    assert len(set(names)) == 4 and all(len(n) <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names


# Parts drawn from a small alphabet, so that '-' joins meet often.
_LABEL = st.from_regex(r"\A[ab]([-ab]{0,3}[ab])?\Z")
_ENV = st.one_of(_LABEL, st.from_regex(r"\A[aB_.]([-aB_.]{0,3}[aB])?\Z"), st.just("x" * 63))
_PARTS = st.tuples(_ENV, _LABEL, _LABEL)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PARTS, min_size=2, max_size=6, unique=True), st.sampled_from([0, len("-launcher")]))
def test_generated_names_are_valid_and_never_meet(parts, room):
    from mpigen.kube.names import generated_name

    names = [generated_name("mpigen", p, room=room) for p in parts]
    assert all(len(n) + room <= 63 and DNS1123_LABEL.fullmatch(n) for n in names), names
    assert len(set(names)) == len(parts), list(zip(parts, names))


def _names_of(objects: list[dict]) -> list[tuple[str, str, str]]:
    return [(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in objects]


def _check_object_names(obj: dict) -> None:
    kind, meta = obj["kind"], obj["metadata"]
    name = meta["name"]
    assert is_subdomain(name), (kind, name)
    if "namespace" in meta:
        assert is_label(meta["namespace"]), (kind, meta["namespace"])
    if kind in ("Job", "MPIJob", "Application", "Kustomization"):
        assert len(name) <= 63, (kind, name)  # a label value on their pods or objects
    if kind == "MPIJob":
        assert DNS1035_LABEL.fullmatch(name), name  # the operator names a Service after it
    if kind == "StatefulSet":  # pod hostnames <name>-<ordinal>
        assert is_label(f"{name}-{obj['spec']['replicas'] - 1 if obj['spec']['replicas'] else 0}"), name
    for labels in (meta.get("labels", {}), obj.get("spec", {}).get("template", {}).get("metadata", {})
                   .get("labels", {})):
        for key, value in labels.items():
            assert QUALIFIED_NAME.fullmatch(key) and len(key.split("/")[-1]) <= 63, key
            assert len(value) <= 63 and LABEL_VALUE.fullmatch(value), (key, value)


@pytest.mark.parametrize("profile", ["none", "argocd", "flux"])
def test_every_name_of_a_whole_repository_render_is_a_kubernetes_name(tmp_path, profile):
    """The examples under every overlay of the repository, with the companions."""
    shutil.copytree(ROOT / "blueprints", tmp_path / "blueprints")
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    write(tmp_path / "overlays" / "Prod_EU" / "overlay.yaml", overlay_text("bases: [prod]\n"))
    overlays = sorted(p.name for p in (tmp_path / "overlays").iterdir())
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays=json.dumps(overlays), gitops=profile))
    done = run_mpigen("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    objects = [d for folder in ("deploy", "clusters") for p in sorted((tmp_path / folder).rglob("*.yaml"))
               if p.name != "kustomization.yaml" for d in documents(p)]
    assert objects
    for obj in objects:
        _check_object_names(obj)
    for env in overlays:  # unique per kind and namespace within an environment
        names = _names_of([d for p in sorted((tmp_path / "deploy" / env).rglob("*.yaml"))
                           if p.name != "kustomization.yaml" for d in documents(p)])
        assert len(names) == len(set(names))
    companions = _names_of([o for o in objects if o["kind"] in ("Application", "Kustomization")
                            and o["apiVersion"] != "kustomize.config.k8s.io/v1beta1"])
    assert len(companions) == len(set(companions))


@pytest.mark.parametrize("target", [["--target", "mpijob"], ["--target", "mpijob", "--gitops", "argocd"],
                                    ["--target", "static", "--gitops", "flux"]])
def test_every_name_of_the_examples_is_a_kubernetes_name_per_target(target):
    done = run_mpigen("render", "blueprints", "--stdout", *target, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    objects = [d for d in yaml.safe_load_all(done.stdout) if d]
    for obj in objects:
        _check_object_names(obj)
    assert len(_names_of(objects)) == len(set(_names_of(objects)))


def test_two_jobs_whose_companions_still_meet_are_named_both(tmp_path, monkeypatch, mpigen_in_process):
    """The render checks names even where they are built not to meet: with every name made
    one (as a hash collision would), both jobs are reported at their metadata.name."""
    import mpigen.emit.companions

    monkeypatch.chdir(tmp_path)
    first = write(tmp_path / "blueprints" / "a.yaml", blueprint("one", "ns"))
    second = write(tmp_path / "blueprints" / "b.yaml", blueprint("two", "ns"))
    write(tmp_path / "mpigen.yaml", CONFIG.format(overlays="[]", gitops="flux"))
    monkeypatch.setattr(mpigen.emit.companions, "generated_name", lambda prefix, parts, room=0: "mpigen-same")
    done = mpigen_in_process("render")
    assert done.returncode == 2, done.stderr
    errors = done.lines("error")
    assert len(errors) == 1, done.stderr
    one, two = pos(first, '"one"'), pos(second, '"two"')
    assert errors[0].startswith(f"blueprints/b.yaml:{two[0]}:{two[1]}: error: the Flux Kustomizations of job ns/two "
                                f"would be named mpigen-same-*, as those of the job at "
                                f"blueprints/a.yaml:{one[0]}:{one[1]}"), errors
    assert not (tmp_path / "deploy").exists()


def test_two_jobs_whose_objects_still_meet_are_named_both(tmp_path, monkeypatch, mpigen_in_process):
    import mpigen.render.static.workers

    monkeypatch.chdir(tmp_path)
    first = write(tmp_path / "bp" / "a.yaml", blueprint("one", "ns"))
    second = write(tmp_path / "bp" / "b.yaml", blueprint("two", "ns"))
    monkeypatch.setattr(mpigen.render.static.workers, "worker_name", lambda job: "same")
    done = mpigen_in_process("render", "bp", "-o", "out")
    assert done.returncode == 2, done.stderr
    one, two = pos(first, '"one"'), pos(second, '"two"')
    assert done.lines("error") == [f"bp/b.yaml:{two[0]}:{two[1]}: error: job ns/two renders "
                                   f"ns/statefulset-same.yaml, as the job at bp/a.yaml:{one[0]}:{one[1]} does; "
                                   "rename one of the jobs"]
    assert not (tmp_path / "out").exists()


def test_mpigen_yaml_namespaces_are_kubernetes_names(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                           "flux: {namespace: Flux System}\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: flux.namespace: " % pos(text, "Flux System")), line


def test_argocd_and_flux_companions_need_folders_of_their_own(tmp_path):
    """Each writes its kustomization.yaml and index there: the second would remove the first's files."""
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Config\noutput: out\n"
                                           "argocd: {repoURL: https://git.example.com/ml.git, applications: clusters}\n"
                                           "flux: {kustomizations: clusters/flux}\n")
    line = one_error(run_mpigen("render", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: flux.kustomizations: 'clusters/flux' overlaps "
                           "argocd.applications 'clusters'" % pos(text, "clusters/flux")), line


# --- defect 6: quantities ----------------------------------------------------------------

def _resources_blueprint(resource: str, value: str, **spec) -> str:
    return blueprint(resources={"worker": {resource: value}}, **spec)


@pytest.mark.parametrize("resource, value, spec", [
    ("memory", "1e99999999999", {"gpusPerWorker": 1}),  # hung: 10 ** 99999999999
    ("cpu", "1e5000", {"scheduling": {"gang": {"scheduler": "volcano"}}}),  # exit 3
    ("cpu", "9223372036854775808", {}),  # 2^63
    ("memory", "8Ei", {}),  # 2^63
    ("cpu", "1e1.5", {}),  # the parser reads the exponent as an integer
    ("cpu", "1e99999999999999999999", {}),  # not even a 64-bit exponent
])
def test_an_out_of_range_quantity_is_refused_at_its_value(tmp_path, resource, value, spec):
    text = write(tmp_path / "bp" / "job.yaml", _resources_blueprint(resource, value, **spec))
    line = one_error(run_mpigen("render", "bp", "--stdout", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.resources.worker.%s: " % (*pos(text, f'"{value}"'),
                                                                                       resource)), line


@pytest.mark.parametrize("value", ["9223372036854775807", "7Ei", "1e-99999999999", "0e99999999999", "0.1n"])
def test_quantities_kubernetes_holds_are_rendered(tmp_path, value):
    write(tmp_path / "bp" / "job.yaml", _resources_blueprint("cpu", value))
    done = run_mpigen("render", "bp", "--stdout", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_podgroup_sum_beyond_the_largest_quantity_is_refused(tmp_path):
    """Each worker's cpu is a quantity; the PodGroup's minResources, their sum, would not be."""
    text = write(tmp_path / "bp" / "job.yaml", _resources_blueprint(
        "cpu", "5e18", scheduling={"gang": {"scheduler": "scheduler-plugins"}}))
    line = one_error(run_mpigen("render", "bp", "--stdout", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.resources.worker.cpu: the PodGroup's minResources "
                           % pos(text, '"5e18"')), line


_NUMBER = st.from_regex(r"\A([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})\Z")
_QUANTITIES = st.one_of(
    st.from_regex(r"\A(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?\Z"),
    st.builds(lambda n, e, sign: f"{n}e{sign}{e}", _NUMBER, st.integers(0, 10**30), st.sampled_from(["", "+", "-"])),
    st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",)), max_size=70),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_QUANTITIES)
def test_no_quantity_string_escapes_a_positioned_answer(value):
    """Every string is a quantity or an error at the value's line and column, and parsing
    it never computes a number Kubernetes could not hold: the work is bounded by the
    exponent check, not by a clock. A value that is accepted is what Kubernetes holds: a
    whole number of nanos, at most 2^63-1."""
    from fractions import Fraction

    from mpigen.load.documents import parse
    from mpigen.kube.quantity import parse as quantity
    from mpigen.validate.fields import validate_document

    try:  # the parser itself: a value, or ValueError (never another exception)
        quantity(value)
    except ValueError:
        pass
    text = _resources_blueprint("memory", value)
    doc, = parse(text, "job.yaml")
    result, diagnostics = validate_document(doc)
    errors = [d for d in diagnostics if d.severity == "error"]
    if result is not None:
        held = quantity(result.spec.resources.worker["memory"])
        assert (held * 10**9).denominator == 1 and Fraction(0) <= held <= 2**63 - 1
        return
    where = pos(text, json.dumps(value), after='"memory": ')
    assert errors and all((e.mark.line, e.mark.column) == where for e in errors), (value, errors)


# --- defect 11: image references -------------------------------------------------------

F64 = "f" * 64
# github.com/distribution/reference, reference_test.go (TestReferenceParse): inputs it parses.
VALID_IMAGES = [
    "test_com", "test.com:tag", "test.com:5000", "test.com/repo:tag", "test:5000/repo", "test:5000/repo:tag",
    f"test:5000/repo@sha256:{F64}", f"test:5000/repo:tag@sha256:{F64}", "lowercase:Uppercase",
    "a/" * 127 + "a:tag-puts-this-over-max", "sub-dom1.foo.com/bar/baz/quux:some-long-tag",
    "b.gcr.io/test.example.com/my-app:test.example.com", f"xn--7o8h.com/myimage:xn--7o8h.com@sha256:{F64}",
    "foo_bar.com:8080", "192.168.1.1:5000/repo", "[2001:db8::1]/repo", f"[2001:db8::1]:5000/repo:tag@sha256:{F64}",
    "[::1]:5000/repo", "example.com/" + "a" * 255 + ":tag",
]
# ... and inputs it refuses (with the error it gives).
INVALID_IMAGES = [
    "",  # ErrNameEmpty
    ":justtag", f"@sha256:{F64}", "aa/asdf$$^/aa", "[2001:db8::1]", "[2001:db8::1]:5000", "[2001:db8::1]:tag",
    "[fe80::1%eth0]:5000/repo",  # ErrReferenceInvalidFormat
    "repo@sha256:" + "f" * 34,  # digest.ErrDigestInvalidLength
    f"validname@invaliddigest:{F64}",  # digest.ErrDigestUnsupported
    "Uppercase:tag", "test:5000/Uppercase/lowercase:tag",  # ErrNameContainsUppercase
    "domain/" + "a" * 256 + ":tag",  # ErrNameTooLong
    "x y", "x\ny", "mpioperator/kubectl-delivery:latest\n",  # not even in the grammar's alphabet
]


@pytest.mark.parametrize("image", VALID_IMAGES)
def test_image_references_distribution_parses_are_accepted(image):
    from mpigen.kube.image import image_problem

    assert image_problem(image) is None


@pytest.mark.parametrize("image", INVALID_IMAGES)
def test_image_references_distribution_refuses_are_refused(image):
    from mpigen.kube.image import image_problem

    assert image_problem(image)


@pytest.mark.parametrize("image", ["x y", "registry.example.com/kd:1\nname: injected", "Kubectl/Delivery", ""])
def test_kubectl_delivery_image_flag_must_be_an_image_reference(tmp_path, image):
    write(tmp_path / "bp" / "job.yaml", blueprint())
    line = one_error(run_mpigen("render", "bp", "--stdout", "--kubectl-delivery-image", image, cwd=tmp_path))
    assert line.startswith(f"error: --kubectl-delivery-image: {image!r} is not an image reference: "), line


def test_a_valid_kubectl_delivery_image_reaches_the_launcher(tmp_path):
    write(tmp_path / "bp" / "job.yaml", blueprint())
    image = f"registry.example.com:5000/mpi/kubectl-delivery:v0.3.0@sha256:{F64}"
    done = run_mpigen("render", "bp", "--stdout", "--kubectl-delivery-image", image, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    job = next(d for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "Job")
    assert [c["image"] for c in job["spec"]["template"]["spec"]["initContainers"]] == [image]


def test_kubectl_delivery_image_in_mpigen_yaml_is_checked_at_its_line(tmp_path):
    write(tmp_path / "blueprints" / "job.yaml", blueprint())
    text = write(tmp_path / "mpigen.yaml", 'apiVersion: mpigen.dev/v1alpha1\nkind: Config\n'
                                           'kubectlDeliveryImage: "kd:1 --privileged"\n')
    line = one_error(run_mpigen("render", "--stdout", cwd=tmp_path))
    assert line.startswith("mpigen.yaml:%d:%d: error: kubectlDeliveryImage: " % pos(text, '"kd:1')), line


def test_spec_image_is_checked_by_the_same_grammar(tmp_path):
    text = write(tmp_path / "bp" / "job.yaml", blueprint(image="Example.com/Train:1"))
    line = one_error(run_mpigen("validate", "bp", cwd=tmp_path))
    assert line.startswith("bp/job.yaml:%d:%d: error: spec.image: " % pos(text, '"Example.com')), line
    assert "is not an image reference" in line
