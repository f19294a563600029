"""An object whose text a render's store keeps is the object with text "" and the store's
reference, every other field as it was: what dataclasses.replace gives (the reference)."""

from __future__ import annotations

from dataclasses import fields, replace

from mpigen import pipeline
from mpigen.pipeline import RenderedObject


class _Store:
    def put(self, path: str, text: str) -> object:
        return ("kept", path, text)


def test_an_object_kept_in_a_store_keeps_every_other_field(monkeypatch):
    # Every field set to a value no default has, so that a field _stored forgets shows.
    values = {"sort_key": (5, "Job", "team-a", "pi"), "path": "team-a/job-pi.yaml", "text": "---\nkind: Job\n",
              "env": "dev", "running_workers": True, "root": "pi-launcher", "ref": (3, 17)}
    obj = RenderedObject(**{f.name: values[f.name] for f in fields(RenderedObject)})
    assert all(getattr(obj, f.name) != f.default for f in fields(RenderedObject))
    cluster = replace(obj, sort_key=(0, "ClusterRole", "", "pi"))  # keeps its text
    monkeypatch.setitem(pipeline._WORK, "store", _Store())
    assert pipeline._stored([obj, cluster]) == [
        replace(obj, text="", ref=("kept", "dev/team-a/job-pi.yaml", obj.text)), cluster]
