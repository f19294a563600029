"""The checker of the names the docs give the render (tests/support/docs_names.py): a wrong name
planted in a copy of a doc is reported at its line, a section that leaves out a Kustomization
its render writes is reported, and placeholders match only what they stand for. The renders
here are written by hand, as the acceptance test (tests/acceptance/test_docs_names.py) gets
them from mpigen: the names of the repository's prod environment under flux."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from tests.support.docs_names import Claim, Render, Scope, claims, problems, produced, unnamed
from tests.support.paths import ROOT

JOBS = {"tensorflow-mnist", "intel-pi"}


def render(kustomizations: Iterable[str] = (), applications: Iterable[str] = (), paths: Iterable[str] = (),
           objects: Iterable[str] = (), overlays: Iterable[str] = ("dev", "prod")) -> Render:
    """A render that wrote these, each folder of `paths` with it, as mpigen writes folders."""
    folders = {"/".join(path.split("/")[:depth]) + "/" for path in paths for depth in range(1, path.count("/") + 1)}
    return Render(frozenset(kustomizations), frozenset(applications), frozenset(paths) | folders, frozenset(objects),
                  frozenset(overlays), frozenset({"ml-dev", "ml-team"}), frozenset(JOBS),
                  frozenset({"configmap", "jobset"}), frozenset({"rendered"}),
                  frozenset({"rendered", "clusters/flux"}))


TRAINJOB = render(kustomizations={"mpigen-prod-runtimes", "mpigen-prod-trainjobs"}, overlays={"prod"},
                  paths={"clusters/flux/kustomizations-prod.yaml", "rendered/prod/trainjobs/kustomization.yaml"})
JOBSET = render(kustomizations={"mpigen-dev"}, paths={"rendered/dev/ml-dev/jobset-tensorflow-mnist-311cfb.yaml",
                                                     "clusters/flux/kustomizations-dev.yaml"},
                objects={"tensorflow-mnist-311cfb"})
RENDERS = {"trainjob": TRAINJOB, "jobset": JOBSET}


def copy(doc: str, tmp_path: Path, old: str = "", new: str = "") -> Path:
    """The doc copied under tmp_path as under the repository, `old` replaced by `new` once."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert not old or text.count(old) == 1, old
    (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / doc).write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path / doc


def reported(path: Path, root: Path, scopes: dict, section: str = "") -> list[str]:
    """What the checker reports of the doc at `path` (of its section under the heading `section`)."""
    found = [claim for claim in claims(path, root, {"rendered", "clusters/flux"}, JOBS) if section in claim.section]
    return problems(found, scopes, RENDERS, lambda golden: JOBSET) + unnamed(root, found, scopes, RENDERS)


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_a_wrong_kustomization_name_in_a_health_check_is_reported_at_its_line(tmp_path):
    """docs/flux/trainjob-health.yaml patching `-trainjob`, the name it gave before, instead of
    `-trainjobs`: the patch would match nothing, and the checks never run."""
    doc = "docs/flux/trainjob-health.yaml"
    scopes = {(doc, ""): Scope(("trainjob",))}
    assert reported(copy(doc, tmp_path), tmp_path, scopes) == []
    planted = copy(doc, tmp_path, "        name: mpigen-prod-trainjobs\n      patch",
                   "        name: mpigen-prod-trainjob\n      patch")
    line = line_of(planted, "name: mpigen-prod-trainjob")
    assert reported(planted, tmp_path, scopes) == [
        f"{doc}:{line}: `mpigen-prod-trainjob` is not what the render of trainjob writes; it writes "
        "mpigen-prod-trainjobs, mpigen-prod-runtimes"]


def test_the_end_of_a_name_the_prose_gives_is_checked(tmp_path):
    """A quoted `-word` where a line speaks of a Kustomization: the old sentence of
    docs/gitops.md that sent the checks to `the -trainjob one`."""
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("# X\n\nPut the checks into the Kustomization that applies the TrainJobs\n"
                   "(the `-trainjob` one).\n\nThe `-trainjobs` Kustomization.\n\nAnd `-np`, for mpirun.\n")
    assert reported(doc, tmp_path, {("docs/x.md", ""): Scope(("trainjob",))}) == [
        "docs/x.md:4: `-trainjob` is not what the render of trainjob writes; it writes mpigen-prod-trainjobs"]


def test_a_struck_through_name_is_history_and_the_rest_of_its_line_is_still_checked(tmp_path):
    """docs/gitops.md's renamed Kustomizations: the name before the rename, struck through,
    claims nothing; the current name beside it, and the old name not struck through, are checked."""
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("# X\n\nThe Kustomization ~~`mpigen-prod-trainjob`~~ becomes `mpigen-prod-trainjobs`.\n\n"
                   "The Kustomization ~~`mpigen-prod-trainjob`~~ becomes `mpigen-prod-trainjobz`.\n\n"
                   "Suspend `mpigen-prod-trainjob` first.\n")
    assert reported(doc, tmp_path, {("docs/x.md", ""): Scope(("trainjob",))}) == [
        "docs/x.md:5: `mpigen-prod-trainjobz` is not what the render of trainjob writes; it writes "
        "mpigen-prod-trainjobs, mpigen-prod-runtimes",
        "docs/x.md:7: `mpigen-prod-trainjob` is not what the render of trainjob writes; it writes "
        "mpigen-prod-trainjobs, mpigen-prod-runtimes"]


def test_a_section_that_leaves_out_a_kustomization_its_render_writes_is_reported(tmp_path):
    """docs/targets.md's jobset target as it read before: no Kustomization for the jobset
    target, when the render writes mpigen-<overlay>; reported at the section's Flux bullet."""
    doc = "docs/targets.md"
    scopes = {(doc, "## The jobset target > ### GitOps"): Scope(("jobset",), complete=True)}
    text = (ROOT / doc).read_text(encoding="utf-8")
    start = text.index("- **Flux**: the objects are written as on the static target")
    bullet = text[start:text.index("\n- **", start + 1) + 1]
    planted = copy(doc, tmp_path, bullet, "- **Flux**: the objects are written as on the static target without a "
                   "profile,\n  and mpigen.yaml's `flux.kustomizations` gets no Kustomization for them: point a\n"
                   "  Kustomization of your own at the output folder.\n")
    heading = "## The jobset target > ### GitOps"
    assert reported(copy(doc, tmp_path / "fixed"), tmp_path / "fixed", scopes, heading) == []
    assert reported(planted, tmp_path, scopes, heading) == [
        f"{doc}:{line_of(planted, '- **Flux**: the objects')}: the render of jobset writes the Flux Kustomization "
        "`mpigen-dev`, which this section (## The jobset target > ### GitOps) does not name"]


def test_one_job_stands_for_every_job_in_a_complete_section(tmp_path):
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("# X\n\nUnder Flux:\n\n    name: mpigen-dev-ml--dev-intel-pi-workers\n")
    pairs = render(kustomizations={"mpigen-dev-ml--dev-intel-pi-workers", "mpigen-dev-ml--dev-tensorflow-mnist-workers",
                                   "mpigen-dev-ml--dev-tensorflow-mnist-launcher"})
    found = claims(doc, tmp_path, set(), JOBS)
    assert unnamed(tmp_path, found, {("docs/x.md", ""): Scope(("pairs",), complete=True)}, {"pairs": pairs}) == [
        "docs/x.md:3: the render of pairs writes the Flux Kustomization `mpigen-dev-ml--dev-tensorflow-mnist-launcher`, "
        "which this section () does not name"]


def test_placeholders_stand_for_the_values_of_the_render_only():
    def claim(text: str, form: str) -> Claim:
        return Claim("docs/x.md", 1, text, form, "")

    pairs = render(kustomizations={"mpigen-dev-ml--dev-intel-pi-workers"},
                   paths={"rendered/dev/ml-dev/intel-pi/workers/", "rendered/dev/ml-dev/intel-pi/workers/job-intel-pi-launcher.yaml"})
    assert not produced(claim("mpigen-<overlay>", "companion"), pairs)  # <overlay> is dev or prod, not the rest
    assert produced(claim("mpigen-<overlay>-ml--dev-<job>-workers", "companion"), pairs)
    assert not produced(claim("mpigen-<overlay>-ml--dev-<job>-launcher", "companion"), pairs)
    assert produced(claim("<ns>/<job>/workers/...", "path"), pairs)
    assert not produced(claim("<ns>/<job>/worker/...", "path"), pairs)
    assert produced(claim("DIR/<overlay>/", "path"), pairs)
    assert not produced(claim("DIR/staging/", "path"), pairs)


def test_an_unknown_placeholder_and_an_unbound_section_are_reported(tmp_path):
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text("# X\n\n## Bound\n\nThe Kustomization `mpigen-<cluster>`.\n\n## Not bound\n\n"
                   "Files under `rendered/dev/`.\n")
    assert reported(doc, tmp_path, {("docs/x.md", "## Bound"): Scope(("jobset",))}) == [
        "docs/x.md:5: `mpigen-<cluster>`: unknown placeholder <cluster>; bind it in placeholders() of "
        "tests/support/docs_names.py",
        "docs/x.md:9: `rendered/dev/` names what a render writes, but no configuration is bound to its section "
        "(# X > ## Not bound): bind one in SCOPES"]


def test_an_object_quoted_from_golden_output_is_checked_against_that_render(tmp_path):
    planted = copy("docs/targets.md", tmp_path, "JobSet `tensorflow-mnist` (replicated jobs",
                   "JobSet `tensorflow-mnist-jobset` (replicated jobs")
    found = [c for c in claims(planted, tmp_path, set(), JOBS) if c.form == "object"]
    wrong = [c for c in found if c.text == "tensorflow-mnist-jobset"]
    assert [c.golden for c in wrong] == [("golden/jobset.yaml",)]
    jobset = render(objects={"tensorflow-mnist", "tensorflow-mnist-config", "tensorflow-mnist-ssh-keygen"})
    assert problems(wrong, {}, {}, lambda golden: jobset) == [
        f"docs/targets.md:{wrong[0].line}: `tensorflow-mnist-jobset` is not what the render of golden/jobset.yaml "
        "writes; it writes tensorflow-mnist, tensorflow-mnist-config, tensorflow-mnist-ssh-keygen"]


def test_the_checker_reads_the_docs_it_is_given(tmp_path):
    shutil.copytree(ROOT / "docs" / "flux", tmp_path / "docs" / "flux")
    found = claims(tmp_path / "docs" / "flux" / "jobset-health.yaml", tmp_path, {"clusters/flux"}, JOBS)
    assert {(c.text, c.form) for c in found} == {("mpigen-prod", "companion"), ("mpigen-<overlay>", "companion"),
                                                 ("./clusters/flux", "path"), ("clusters/flux", "path")}
