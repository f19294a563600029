"""The spill that keeps a render's documents out of memory (mpigen.emit.spill) gives back each
document, from whichever process put it: two forked processes and the parent write at once."""

from __future__ import annotations

import multiprocessing

from mpigen.emit.spill import Spill


def _put_in_child(spill: Spill, texts: list[str], refs) -> None:
    refs.extend([spill.put(f"{i}.yaml", text) for i, text in enumerate(texts)])


def test_the_spill_gives_back_what_each_process_put():
    """Two forked processes and the parent write to the spill at once; the parent reads
    every document back, whoever wrote it."""
    spill = Spill()
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        texts = {name: [f"---\n{name}: {i}\nnote: {'é' * i}\n" for i in range(200)] for name in ("a", "b")}
        refs = {name: manager.list() for name in texts}
        children = [context.Process(target=_put_in_child, args=(spill, texts[name], refs[name])) for name in texts]
        for child in children:
            child.start()
        mine = [spill.put("p.yaml", f"---\nparent: {i}\n") for i in range(50)]
        for child in children:
            child.join()
            assert child.exitcode == 0
        for name in texts:
            assert [spill.read("", ref).decode() for ref in refs[name]] == texts[name]
        assert [spill.read("", ref) for ref in mine] == [f"---\nparent: {i}\n".encode() for i in range(50)]
    spill.close()
