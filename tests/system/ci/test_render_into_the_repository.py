"""A render of some blueprints into the output folder mpigen.yaml owns (or a folder in it) is
refused, with the commands that do what was meant, and writes nothing: that folder holds the
render of every blueprint under every overlay, and the render of one blueprint alone would
have replaced it (every environment folder deleted, one job written un-overlaid, exit 0)."""

from __future__ import annotations

from tests.support.ci_repository import OUT, make_repo, mpigen, snapshot


def test_a_render_of_one_blueprint_into_the_repositorys_output_is_refused(tmp_path):
    root = make_repo(tmp_path / "repo")
    before = snapshot(root)
    for out in (OUT, f"{OUT}/prod", f"./{OUT}/"):
        run = mpigen(root, "render", "blueprints/intel-pi.yaml", "-o", out)
        assert run.code == 2, run.err
        shown = out.rstrip("/").removeprefix("./")
        inside = "" if shown == OUT else "in "
        assert run.err == (
            f"error: {shown} is {inside}the output folder of mpigen.yaml, {OUT}, which holds the render of every "
            "blueprint under each of its overlays (dev, prod): a render of blueprints/intel-pi.yaml alone would "
            "replace it. Render the repository into it with `mpigen render` (no PATH; `mpigen render --overlay NAME` "
            "for one environment), or these blueprints elsewhere: `mpigen render blueprints/intel-pi.yaml -o "
            "OTHER_DIR` or `mpigen render blueprints/intel-pi.yaml --stdout`\n")
    assert snapshot(root) == before  # nothing of any environment deleted or written
    # From a sub-folder, the same folder by another path is refused too.
    run = mpigen(root / "blueprints", "render", "intel-pi.yaml", "-o", f"../{OUT}")
    assert run.code == 2 and "the output folder of mpigen.yaml" in run.err
    # What the message proposes works.
    assert mpigen(root, "render", "blueprints/intel-pi.yaml", "-o", "elsewhere").code == 0
    assert mpigen(root, "render", "--overlay", "prod").code == 0
    assert sorted(p.name for p in (root / OUT).iterdir() if p.is_dir()) == ["dev", "prod"]
    assert mpigen(root, "check").code == 0


def test_the_repositorys_blueprints_for_one_of_its_overlays_are_rendered_into_its_folder(tmp_path):
    """What `mpigen render --overlay prod` does, with mpigen.yaml's blueprints named: only
    prod's folder is written; dev's is untouched. One blueprint for prod is refused: prod's
    other jobs would go."""
    root = make_repo(tmp_path / "repo")
    dev = {p: p.read_bytes() for p in (root / OUT / "dev").rglob("*") if p.is_file()}
    assert mpigen(root, "render", "blueprints", "--overlay", "prod", "-o", OUT).code == 0
    assert {p: p.read_bytes() for p in (root / OUT / "dev").rglob("*") if p.is_file()} == dev
    assert mpigen(root, "check").code == 0
    run = mpigen(root, "render", "blueprints/intel-pi.yaml", "--overlay", "prod", "-o", OUT)
    assert run.code == 2 and "a render of blueprints/intel-pi.yaml alone would replace it" in run.err
