"""One emitted object as a render carries it: its document, where it goes in the output folder,
the key it is sorted by, and the sha256 of its bytes (the index, the cache and the comparison
with the output folder use that, not the text); with a store, the text is kept there instead."""

from __future__ import annotations

from typing import NamedTuple, Protocol


class TextStore(Protocol):
    """Where the processes of a render put each document as they emit it, instead of
    sending its text back (mpigen.emit.spill, mpigen.output.staged): put(path in the output
    folder, text) -> the reference a RenderedObject keeps; adopt(path, a text of the cache,
    mpigen.cache.store.CachedText) -> the same (the text read and put, where the store must
    hold it itself); read(path, reference) -> the bytes."""

    def put(self, path: str, text: str) -> object: ...

    def adopt(self, path: str, cached) -> object: ...

    def read(self, path: str, ref) -> bytes: ...


class Admitted(NamedTuple):
    """An object Kueue writes into once it admits the job: its API group and kind, and the
    fields it writes (jq paths, mpigen.render.kueue), which Argo CD must leave alone."""

    group: str
    kind: str
    paths: tuple[str, ...]


class RenderedObject(NamedTuple):
    """One emitted object: its YAML document (with the `# Source:` line), where it goes in
    the output folder, and the key it is sorted by (install order, namespace, name). A tuple:
    a render of 10,000 jobs holds 60,000 of them, and the cache reads them back by the thousand."""

    sort_key: tuple
    path: str           # <namespace>/<kind>-<name>.yaml
    text: str
    env: str = ""       # the overlay's name ("" without overlays): the output sub-folder
    running_workers: bool = False  # a worker StatefulSet with replicas > 0 (the launcher may scale it)
    root: str = ""      # flux: the folder of the job's workers or launcher (a kustomize root of its own)
    ref: object = None  # with a TextStore: where it keeps the text (then "" here); from the cache: a CachedText
    digest: bytes = b""  # sha256 of the text's UTF-8 bytes
    admitted: Admitted | None = None  # argocd: what Kueue writes into it (its Application ignores that)
    cluster_scoped: bool = False  # of a cluster-scoped kind (mpigen.render.kinds.Kind.cluster_scoped)

    @property
    def out_path(self) -> str:
        """Where it goes in the output folder: `path` in its environment's sub-folder."""
        return f"{self.env}/{self.path}" if self.env else self.path

    @property
    def shared(self) -> bool:
        """A cluster-scoped object: jobs that render it the same share it, and so may the
        environments on one cluster (mpigen.pipeline.assembly)."""
        return self.cluster_scoped
