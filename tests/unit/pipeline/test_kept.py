"""An object whose text a render's store keeps is the object with text "" and the store's
reference, every other field as it was; so is an object as a cache entry holds it (its text
after the entry's summary, a CachedText in its place)."""

from __future__ import annotations

from mpigen.cache import texts as cache_texts
from mpigen.cache.store import THIS_ENTRY, CachedText
from mpigen.emit.rendered import Admitted, RenderedObject
from mpigen.pipeline.results import DocResult, FileResult
from mpigen.pipeline.step import stored

# Every field set to a value no default has, so that a field `stored` or `packed` forgets shows.
VALUES = {"sort_key": (5, "Job", "team-a", "pi"), "path": "team-a/job-pi.yaml", "text": "---\nkind: Job\n",
          "env": "dev", "running_workers": True, "root": "pi-launcher", "ref": (3, 17), "digest": b"d" * 32,
          "admitted": Admitted("batch", "Job", (".spec.template.spec.nodeSelector",)), "cluster_scoped": True}
# The same, of a namespaced kind: its text goes to the store (a cluster-scoped object keeps it).
NAMESPACED = {**VALUES, "cluster_scoped": False}


class _Store:
    def put(self, path: str, text: str) -> object:
        return ("kept", path, text)


def test_every_field_has_a_value_no_default_has():
    assert list(VALUES) == list(RenderedObject._fields)
    obj = RenderedObject(**VALUES)
    assert all(getattr(obj, name) != default for name, default in RenderedObject._field_defaults.items())


def test_an_object_kept_in_a_store_keeps_every_other_field():
    obj = RenderedObject(**NAMESPACED)
    cluster = obj._replace(sort_key=(0, "ClusterRole", "", "pi"), cluster_scoped=True)  # keeps its text
    assert stored([obj, cluster], _Store()) == [
        RenderedObject(**{**NAMESPACED, "text": "", "ref": ("kept", "dev/team-a/job-pi.yaml", obj.text)}), cluster]


def test_an_object_packed_for_the_cache_keeps_every_other_field():
    obj = RenderedObject(**{**NAMESPACED, "ref": None})
    cluster = obj._replace(sort_key=(0, "ClusterRole", "", "pi"), cluster_scoped=True)
    chunk = FileResult([], [[DocResult([], objects=[obj, cluster, obj])]], set())
    packed, texts = cache_texts.packed(chunk)
    length = len(obj.text.encode())
    assert packed.per_env[0][0].objects == [
        RenderedObject(**{**NAMESPACED, "text": "", "ref": CachedText(THIS_ENTRY, 0, length, obj.digest)}), cluster,
        RenderedObject(**{**NAMESPACED, "text": "", "ref": CachedText(THIS_ENTRY, length, length, obj.digest)})]
    assert texts == obj.text.encode() * 2
    assert chunk.per_env[0][0].objects == [obj, cluster, obj]  # the run's own result is left as it was
