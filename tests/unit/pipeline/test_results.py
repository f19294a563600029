"""The shape of a file's result covers every field the checks across jobs and the assembly of
environments read: a field added to a result type fails here until the shape covers it or
names it as left out; and results of one shape differ only in their documents' bytes."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from mpigen.emit.rendered import Admitted, RenderedObject
from mpigen.errors import Mark, error, warning
from mpigen.pipeline import results
from mpigen.pipeline.results import DocResult, FileResult, shape

COVERED = {FileResult: (results.FILE_SHAPE, results.FILE_LEFT_OUT), DocResult: (results.DOC_SHAPE, results.DOC_LEFT_OUT),
           RenderedObject: (results.OBJECT_SHAPE, results.OBJECT_LEFT_OUT)}


def field_names(kind: type) -> set[str]:
    return set(kind._fields) if kind is RenderedObject else {f.name for f in fields(kind)}


@pytest.mark.parametrize("kind", COVERED, ids=lambda kind: kind.__name__)
def test_every_field_of_a_result_is_in_its_shape_or_named_as_left_out(kind):
    covered, left_out = map(set, COVERED[kind])
    assert not covered & left_out
    assert covered | left_out == field_names(kind)


def one_file(text: str = "---\nkind: Job\n", **changes) -> FileResult:
    obj = RenderedObject((5, "Job", "team-a", "pi"), "team-a/job-pi.yaml", text, "dev", False, "",
                         None, text.encode())
    doc = DocResult([warning(Mark("bp/pi.yaml", 3, 1), "a warning")], Mark("bp/pi.yaml", 4, 9), ("team-a", "pi"),
                    [obj])
    return FileResult([], [[doc]], {("overlays/dev/overlay.yaml", "patches", 0)}, **changes)


def test_results_that_differ_only_in_their_documents_bytes_have_one_shape():
    assert shape(one_file()) == shape(one_file("---\nkind: Job\nother: bytes\n", shape=b"s" * 32))


@pytest.mark.parametrize("change", [
    lambda r: replace(r, used=set()),
    lambda r: replace(r, problems=[warning(Mark("bp/pi.yaml"), "another")]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], job=("team-b", "pi"))]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], name_mark=Mark("bp/pi.yaml", 5, 9))]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], diagnostics=[])]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], objects=[
        r.per_env[0][0].objects[0]._replace(root="pi-workers")])]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], objects=[
        r.per_env[0][0].objects[0]._replace(running_workers=True)])]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], objects=[
        r.per_env[0][0].objects[0]._replace(admitted=Admitted("batch", "Job", (".spec.template",)))])]]),
    lambda r: replace(r, per_env=[[replace(r.per_env[0][0], objects=[
        r.per_env[0][0].objects[0]._replace(path="team-a/job-pj.yaml")])]]),
    lambda r: replace(r, per_env=[[], *r.per_env]),
], ids=["used", "problems", "job", "name_mark", "diagnostics", "root", "running_workers", "admitted", "path",
                  "environments"])
def test_a_change_the_checks_across_jobs_read_is_another_shape(change):
    assert shape(change(one_file())) != shape(one_file())


def test_an_error_or_a_shared_object_has_no_shape():
    """Its documents matter beyond its own file: the run stops, or which job's copy is kept
    depends on the other files."""
    assert shape(replace(one_file(), problems=[error(Mark("bp/pi.yaml"), "broken")])) is None
    doc = one_file().per_env[0][0]
    shared = doc.objects[0]._replace(sort_key=(0, "ClusterTrainingRuntime", "", "rt"), cluster_scoped=True)
    assert shape(replace(one_file(), per_env=[[replace(doc, objects=[shared])]])) is None
