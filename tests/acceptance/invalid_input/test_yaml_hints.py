"""YAML syntax errors that teach (issue 19, point 2): each real mistake a user makes in a
blueprint is reported at the place to fix (the colon that needs a space, the quote or
bracket never closed, the line indented wrong), with libyaml's words and a one-line hint.

One test per mistake, on the blueprint of tests/support/invalid_input.py with that one
mistake; the expected position is computed from the text (`pos`), never typed in; the
whole error line is compared, so that a hint that changes or moves fails its test."""

from __future__ import annotations

import pytest

from tests.support.invalid_input import BASE, add_dataset, variant
from tests.support.text import pos, write

_TWO_ITEMS = add_dataset("""\
    - name: other
      mountPath: /data/other
      pvc: other-claim
    """)

# id: (text, needle, sub (None: the needle's start), message after `error: `)
MISTAKES = {
    "colon-space-in-a-value": (
        variant(("image: horovod/horovod:0.28.1", "image: horovod/horovod: 0.28.1")), "horovod: 0.28.1", ":",
        "invalid YAML: mapping values are not allowed in this context; a value that holds ': ' must be quoted: "
        'image: "horovod/horovod: 0.28.1"'),
    "no-space-after-a-colon": (
        variant(("  workers: 4\n", "  workers:4\n")), "workers:4", ":",
        "invalid YAML: could not find expected ':'; a key needs a space after its colon: write workers: 4"),
    "no-space-after-the-first-key-of-a-mapping": (
        variant(("  framework: horovod\n", "  framework:horovod\n")), "framework:horovod", ":",
        "invalid YAML: mapping values are not allowed in this context; a key needs a space after its colon: "
        "write framework: horovod"),
    "tab-indentation": (
        variant(("  workers: 4\n", "\tworkers: 4\n")), "\tworkers", None,
        "invalid YAML: found a tab character that violates indentation; YAML indents with spaces, never tabs: "
        "replace the tab with spaces"),
    "tab-before-the-first-key": (
        variant(("  framework: horovod\n", "\tframework: horovod\n")), "\tframework", None,
        "invalid YAML: found character that cannot start any token; YAML indents with spaces, never tabs: replace "
        "the tab with spaces"),
    "indented-too-far": (
        variant(("  workers: 4\n", "    workers: 4\n")), "    workers", "workers",
        "invalid YAML: mapping values are not allowed in this context; check the indentation: this line is "
        "indented more than 'image' above it, so it reads as the rest of that value; indent it as 'image' "
        "(2 spaces)"),
    "key-dedented-to-column-0": (  # the line that moved is blamed, not the next one
        variant(("  workers: 4\n", "workers: 4\n")), "workers: 4", None,
        "invalid YAML: mapping values are not allowed in this context; check the indentation: this line is "
        "indented 0 spaces, less than the lines above and below it (2 spaces), so it leaves 'spec' (line 7)"
        ", and the next line reads as the rest of its value; indent it 2 spaces, as the lines around it"),
    "key-of-a-nested-mapping-dedented": (
        variant(("    NCCL_DEBUG: INFO\n", "    NCCL_DEBUG: INFO\n  OMP_PROC_BIND: close\n    NCCL_IB: mlx5\n")),
        "OMP_PROC_BIND", None,
        "invalid YAML: mapping values are not allowed in this context; check the indentation: this line is "
        "indented 2 spaces, less than the lines above and below it (4 spaces), so it leaves 'env' (line 13)"
        ", and the next line reads as the rest of its value; indent it 4 spaces, as the lines around it"),
    "key-with-a-quoted-value-dedented": (
        variant(("  workers: 4\n", 'workers: "4"\n')), 'workers: "4"', None,
        "invalid YAML: did not find expected key; check the indentation: this line is indented 0 spaces, less "
        "than the lines above and below it (2 spaces), so it leaves 'spec' (line 7), and the next line, indented "
        "more, fits nowhere; indent it 2 spaces, as the lines around it"),
    "indented-too-little": (
        variant(("  workers: 4\n", " workers: 4\n")), " workers", "workers",
        "invalid YAML: did not find expected key; check the indentation: this line is indented 1 space, which "
        "lines up with no line above it (2 or 0 spaces)"),
    "list-item-key-indented-too-far": (
        variant(("      mountPath: /data/imagenet\n", "       mountPath: /data/imagenet\n")), "mountPath:",
        "mountPath",
        "invalid YAML: mapping values are not allowed in this context; check the indentation: this line is "
        "indented more than 'name' above it, so it reads as the rest of that value; indent it as 'name' "
        "(6 spaces)"),
    "list-items-not-aligned": (
        _TWO_ITEMS.replace("    - name: other", "     - name: other"), "- name: other", None,
        "invalid YAML: did not find expected '-' indicator; check the indentation: this list item is indented "
        "5 spaces and the items above it 4: align the dashes"),
    "list-item-among-keys": (
        variant(("    NCCL_DEBUG: INFO\n", "    NCCL_DEBUG: INFO\n    - OMP_NUM_THREADS=4\n")), "- OMP", None,
        "invalid YAML: did not find expected key; a list item among keys: a list goes under a key of its own "
        "('key:' with the items indented below it)"),
    "key-after-a-list-at-its-indentation": (
        variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n    sharedMemory: 1Gi\n")),
        "sharedMemory", None,
        "invalid YAML: did not find expected '-' indicator; this line is at the indentation of the list items "
        "above it (4 spaces) but is no item: start it with '- ', or indent it as the key the list belongs to, to "
        "end the list"),
    "line-without-a-colon": (
        variant(("  workers: 4\n", "  workers 4\n")), "workers 4", None,
        "invalid YAML: could not find expected ':'; this line is neither 'key: value' nor a "
        "list item ('- '): add ': ' after its key, or join it to the value above it"),
    "unclosed-double-quote": (
        variant(("image: horovod/horovod:0.28.1", 'image: "horovod/horovod:0.28.1')), '"horovod', '"',
        'invalid YAML: did not find expected key; this quote (") is not closed on its line, so the value runs on to '
        'the next ": end the value with "'),
    "unclosed-double-quote-at-the-end": (
        variant(("backoffLimit: 3", 'backoffLimit: "3')), '"3', '"',
        'invalid YAML: found unexpected end of stream; this quote (") is never closed: end the value with "'),
    "unclosed-single-quote": (
        variant(("name: demo", "name: 'demo")), "'demo", "'",
        "invalid YAML: found unexpected end of stream; this quote (') is never closed: end the value with '"),
    "text-after-a-closing-quote": (
        variant(("team: vision", "team: 'vision's'")), "s'\n", None,
        "invalid YAML: did not find expected key; text after a closing quote: quote the whole value (inside "
        "'...' write '' for a quote, inside \"...\" write \\\")"),
    "unclosed-bracket": (
        variant(("[python, /examples/train.py]", "[python, /examples/train.py")), "[python", "[",
        "invalid YAML: did not find expected ',' or ']'; this '[' is not closed on its line: add ']' where it "
        "ends, or quote the value if the bracket belongs to it"),
    "unclosed-brace": (
        variant(('{cpu: "2", memory: 4Gi}', '{cpu: "2", memory: 4Gi')), "{cpu: \"2\"", "{",
        "invalid YAML: did not find expected ',' or '}'; this '{' is not closed on its line: add '}' where it "
        "ends, or quote the value if the bracket belongs to it"),
    "unquoted-hash-in-a-list": (
        variant(("[python, /examples/train.py]", "[python, /examples/train.py, --tag, #1]")), "[python", "[",
        "invalid YAML: did not find expected ',' or ']'; ' #' starts a comment, which hides the rest of the line "
        "and its closing ']': quote the item that holds '#'"),
    "file-ending-inside-a-bracket": (
        variant(("    backoffLimit: 3\n", "    backoffLimit: 3\n  mpirunArgs: [\n")), "[\n", "[",
        "invalid YAML: did not find expected node content; the file ends inside this '[': add ']' where it ends"),
    "missing-comma-in-a-flow-mapping": (
        variant(('{cpu: "2", memory: 4Gi}', '{cpu: "2" memory: 4Gi}')), "memory: 4Gi}", "memory",
        "invalid YAML: did not find expected ',' or '}'; items of [...] and {...} are separated by ', ': a comma "
        "is missing before this item, or the item needs quotes"),
    "backslash-in-double-quotes": (
        variant(("mountPath: /data/imagenet", 'mountPath: "D:\\data\\imagenet"')), "\\data", "\\",
        "invalid YAML: found unknown escape character; inside \"...\" a backslash starts an escape: use single "
        "quotes ('C:\\data') or write \\\\"),
    "document-marker-twice-on-a-line": (
        BASE + "--- ---\n" + BASE, "--- ---", None,
        "invalid YAML: mapping values are not allowed in this context; a document marker (---) stands on a line "
        "of its own: put what follows it on the next line, or remove the extra marker"),
    "mapping-on-the-document-marker-line": (
        "--- " + BASE, "--- ", None,
        "invalid YAML: mapping values are not allowed in this context; a document marker (---) stands on a line "
        "of its own: put what follows it on the next line, or remove the extra marker"),
    "document-after-an-end-marker": (
        BASE + "...\n" + BASE, "apiVersion", None,
        "invalid YAML: did not find expected <document start>; after '...' (the end of a document) the next "
        "document starts with '---': add it, or remove the '...'"),
    "list-on-its-keys-line": (
        variant(("  command: [python, /examples/train.py]\n", "  command: - python\n")), "- python", None,
        "invalid YAML: block sequence entries are not allowed in this context; a list cannot start on its key's "
        "line: put the items on the lines below it ('- a'), or write [a, b]"),
    "value-starting-with-an-at-sign": (
        variant(("team: vision", "team: @vision")), "@vision", None,
        "invalid YAML: found character that cannot start any token; '@' cannot start an unquoted value: put the "
        "value in quotes"),
    "value-starting-with-an-ampersand": (
        variant(("team: vision", "team: & vision")), "& vision", None,
        "invalid YAML: did not find expected alphabetic or numeric character; '&' and '*' start anchors and "
        "aliases: put a value that starts with them in quotes"),
    "text-after-a-block-scalar-indicator": (
        variant(("pvc: imagenet-claim", "pvc: |imagenet-claim")), "|imagenet", "i",
        "invalid YAML: did not find expected comment or line break; after '|' or '>' only a comment may follow "
        "on the line: put the text on the lines below, indented"),
    "empty-item-in-a-list": (
        variant(("[python, /examples/train.py]", "[python, , /examples/train.py]")), " , ", ",",
        "invalid YAML: did not find expected node content; an empty item: remove the extra comma, or put the "
        "value in quotes"),
}


@pytest.mark.parametrize("text, needle, sub, message", MISTAKES.values(), ids=MISTAKES.keys())
def test_a_yaml_mistake_is_reported_where_to_fix_it_with_a_hint(cli, text, needle, sub, message):
    write("bad.yaml", text)
    line, column = pos(text, needle, sub) if not needle.startswith("apiVersion") else _second(text, needle)
    for args in (("validate", "bad.yaml"), ("render", "bad.yaml", "--stdout")):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        assert done.stderr.splitlines() == [f"bad.yaml:{line}:{column}: error: {message}"]


def _second(text: str, needle: str) -> tuple[int, int]:
    """Line and column of the second occurrence of needle (the document after the marker)."""
    return pos(text, needle, after=needle)


# A list item indented one space more than the item above it is no syntax error: YAML folds
# it into that item's plain value. mpigen still renders (exit 0), and warns at the dash.
_FOLDED_ITEM = ("this '- ' continues the plain value above it, which YAML reads as the one value "
                "'python - /examples/tensorflow_mnist.py', not as a list item; indent it as the item above it "
                "({spaces} spaces), or quote the value if the dash belongs to it")


def test_a_list_item_folded_into_the_item_above_is_warned_about_at_its_dash(cli):
    text = write("bad.yaml", variant(("  command: [python, /examples/train.py]\n",
                                      "  command:\n    - python\n     - /examples/tensorflow_mnist.py\n")))
    line, column = pos(text, "     - /examples", "-")
    for args in (("validate", "bad.yaml"), ("render", "bad.yaml", "--stdout")):
        done = cli(*args)
        assert done.returncode == 0, done.stderr
        assert done.lines("warning") == [f"bad.yaml:{line}:{column}: warning: {_FOLDED_ITEM.format(spaces=4)}"]
    launcher = next(o for o in done.objects() if o["kind"] == "Job")["spec"]["template"]["spec"]["containers"][0]
    assert launcher["command"][-1] == "python - /examples/tensorflow_mnist.py"  # what YAML reads, as warned


def test_the_same_in_an_overlay(cli):
    write("blueprints/job.yaml", BASE)
    text = write("overlays/dev/overlay.yaml", "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\npatches:\n"
                 "  - patch:\n      spec:\n        command:\n          - python\n"
                 "           - /examples/tensorflow_mnist.py\n")
    line, column = pos(text, "           - /examples", "-")
    done = cli("render", "--overlay", "dev", "--stdout")
    assert done.returncode == 0, done.stderr
    assert done.lines("warning") == [
        f"overlays/dev/overlay.yaml:{line}:{column}: warning: {_FOLDED_ITEM.format(spaces=10)}"]


@pytest.mark.parametrize("text", [
    "  command:\n    - python\n    - /examples/train.py\n",         # two items
    "  command:\n    - python\n      /examples/train.py\n",         # a folded value with no dash
    "  command:\n    - \"python\n     - /examples/train.py\"\n",  # quoted: the dash is the user's
])
def test_no_warning_without_a_dash_folded_into_a_plain_value(cli, text):
    write("job.yaml", variant(("  command: [python, /examples/train.py]\n", text)))
    done = cli("validate", "job.yaml")
    assert done.returncode == 0 and done.lines("warning") == [], done.stderr
