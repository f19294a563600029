"""`mpigen import`, a view: one document seen as another (a job manifest and what it
references as the MPIJob they amount to), each of its values keeping the file, line and path where it is
written, so that a reader of the view reports at the lines of the documents it comes from."""

from __future__ import annotations

from dataclasses import dataclass, field

from mpigen.decompile.reader import Reader
from mpigen.load.document import Document, Loc, field_path


@dataclass
class View:
    """The MPIJob a job manifest amounts to, and where each of its parts comes from."""

    data: dict
    origins: dict[Loc, tuple[Document, Loc]] = field(default_factory=dict)

    def put(self, loc: Loc, value, doc: Document, origin: Loc):
        """Set the view's value at loc (a list's index may be its length: appended), written
        at origin in doc."""
        node = self.data
        for part in loc[:-1]:
            if isinstance(node, dict):
                node = node.setdefault(part, {})
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return None  # a view of a template without that part: the decompiler refuses it
        if isinstance(node, list) and loc[-1] == len(node):
            node.append(value)
        elif isinstance(node, dict) or (isinstance(node, list) and loc[-1] < len(node)):
            node[loc[-1]] = value
        else:
            return None
        self.origins[loc] = (doc, origin)
        return value

    def where(self, loc: Loc) -> tuple[Document, Loc] | None:
        """The document and path where the view's loc is written (its nearest known part)."""
        for end in range(len(loc), -1, -1):
            found = self.origins.get(tuple(loc[:end]))
            if found is not None:
                doc, origin = found
                return doc, origin + tuple(loc[end:])
        return None

    def document(self, job: Document) -> Document:
        """The view as a Document whose marks are those of the files its parts come from."""
        doc = Document(job.path, self.data, job.start)
        for loc in _locations(self.data):
            found = self.where(loc)
            if found is None:
                continue
            source, origin = found
            if origin in source.key_marks:
                doc.key_marks[loc] = source.key_marks[origin]
            if origin in source.value_marks:
                doc.value_marks[loc] = source.value_marks[origin]
        return doc


class ViewReader(Reader):
    """The MPIJob decompiler's reader on a view: its messages name the fields of the documents
    the view comes from, at their lines."""

    def __init__(self, doc: Document, strict: bool, api: str, view: View):
        super().__init__(doc, strict, api)
        self.view = view
        self.launcher_as_worker = True
        self.failure_policy = True

    def name(self, loc: Loc) -> str:
        found = self.view.where(loc)
        if found is None:
            return field_path(loc)
        source, origin = found
        return f"{source.data.get('kind', 'document')} {field_path(origin)}"


def _locations(node, loc: Loc = ()):
    yield loc
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _locations(value, loc + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _locations(value, loc + (index,))


def named(item, names) -> bool:
    """Whether a list item is a mapping named one of names."""
    return isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"] in names


def keep(view: View, loc: Loc, items: list, order: list[int], doc: Document, origin: Loc) -> None:
    """Reorder or filter a list of the view, each item keeping where it is written."""
    kept = [items[i] for i in order]
    items[:] = kept
    for new, old in enumerate(order):
        view.origins[loc + (new,)] = (doc, origin + (old,))


def without(view, holder: dict, key: str, loc: Loc, doc, origin: Loc, drop) -> None:
    """A list of the view less the items `drop` picks (holder is at loc, written at origin)."""
    items = holder.get(key)
    if not isinstance(items, list):
        return
    order = [i for i, item in enumerate(items) if not drop(item)]
    keep(view, loc + (key,), items, order, doc, origin + (key,))
    if not items:
        del holder[key]
