"""What mpigen would refuse in an imported blueprint, reported where in the manifest its value
comes from (the reader's origins): a number with a fraction, and whatever validation refuses
of the blueprint as mpigen reads it back from the YAML it writes."""

from __future__ import annotations

from mpigen.decompile.reader import Reader
from mpigen.emit.yaml import dump_object
from mpigen.load.document import Loc
from mpigen.load.parser import parse
from mpigen.validate.document import validate_document
from mpigen.validate.reserved import Reserved


def refuse_what_mpigen_would(r: Reader, blueprint: dict, reserved: Reserved) -> None:
    """What mpigen would refuse in the blueprint, reported where its value came from."""
    fractions = list(_fractions(blueprint))
    for loc in fractions:  # no Kubernetes field a blueprint carries takes one (quantities are strings)
        r.refuse(r.origin(loc), "a number with a fraction, where Kubernetes takes a whole number (or a string)")
    if fractions:
        return
    doc = parse(dump_object(blueprint), "imported")[0]
    _, diagnostics = validate_document(doc, reserved)
    where = {(m.line, m.column): loc for marks in (doc.value_marks, doc.key_marks) for loc, m in marks.items()}
    for diagnostic in diagnostics:
        if diagnostic.severity == "error":
            loc = where.get((diagnostic.mark.line, diagnostic.mark.column), ())
            r.refuse(r.origin(loc), f"mpigen cannot take what this says: {diagnostic.message}")


def _fractions(node, loc: Loc = ()):
    if isinstance(node, float):
        yield loc
    elif isinstance(node, (dict, list)):
        for key, value in node.items() if isinstance(node, dict) else enumerate(node):
            yield from _fractions(value, loc + (key,))
