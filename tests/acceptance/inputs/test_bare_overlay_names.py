"""A bare overlay name is looked up in the repository's overlays/ folder, not in the working
folder: the same overlay from any folder (issue 15, defect 12).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from tests.support.command_line import run_mpigen
from tests.support.input_repository import CONFIG, OVERLAY, refused
from tests.support.text import pos, write


# --- bare overlay names ----------------------------------------------------------------------

def _objects(done) -> list[dict]:
    assert done.returncode == 0, done.stderr.decode()
    return [o for o in yaml.safe_load_all(done.stdout) if o]


def _decoy(folder: Path, name: str) -> None:
    """An overlay named like one of the repository's, where a lookup from the working
    folder would find it."""
    write(folder / name / "overlay.yaml", OVERLAY + "namespace: decoy\nlabels: {decoy: picked}\n")
    write(folder / "overlays" / name / "overlay.yaml", OVERLAY + "namespace: decoy\nlabels: {decoy: picked}\n")


def test_a_bare_base_name_is_the_repositorys_overlay_from_any_folder(shared_repository):
    expected = _objects(run_mpigen("render", "blueprints", "--overlay", "prod", "--stdout", cwd=shared_repository))
    assert {o["metadata"]["namespace"] for o in expected} == {"prod"}
    assert {o["metadata"]["labels"]["pool"] for o in expected} == {"a100"}  # from the base, pool
    _decoy(shared_repository / "blueprints", "pool")
    _decoy(shared_repository.parent / f"{shared_repository.name}-cwd", "pool")
    try:
        from_sub_folder = run_mpigen("render", ".", "--overlay", "../overlays/prod", "--stdout",
                                     cwd=shared_repository / "blueprints")
        from_elsewhere = run_mpigen("render", f"{shared_repository}/blueprints", "--overlay", f"{shared_repository}/overlays/prod", "--stdout",
                                    cwd=shared_repository.parent / f"{shared_repository.name}-cwd")
        for done in (from_sub_folder, from_elsewhere):
            assert _objects(done) == expected
    finally:
        shutil.rmtree(shared_repository.parent / f"{shared_repository.name}-cwd")


def test_a_bare_base_name_of_an_overlay_kept_outside_overlays_is_looked_up_in_the_repository(shared_repository):
    """An overlay in envs/ (named by path): its bare base names are the repository's
    overlays, the repository being the folder of mpigen.yaml, whatever the working folder."""
    write(shared_repository / "envs/staging/overlay.yaml", OVERLAY + "bases: [pool]\nnamespace: staging\n")
    _decoy(shared_repository / "blueprints", "pool")
    _decoy(shared_repository / "envs", "pool")
    done = run_mpigen("render", ".", "--overlay", "../envs/staging", "--stdout", cwd=shared_repository / "blueprints")
    objects = _objects(done)
    assert {o["metadata"]["namespace"] for o in objects} == {"staging"}
    assert {o["metadata"]["labels"]["pool"] for o in objects} == {"a100"}
    assert not any("decoy" in o["metadata"]["labels"] for o in objects)


def test_a_bare_overlay_name_never_means_a_folder_of_the_working_folder(shared_repository):
    """--overlay NAME and mpigen.yaml's overlays name overlays/NAME of the repository: a
    folder NAME in the working folder is not an overlay, even when overlays/NAME is missing."""
    write(shared_repository / "staging/overlay.yaml", OVERLAY + "namespace: staging\n")
    done = run_mpigen("render", "blueprints", "--overlay", "staging", "--stdout", cwd=shared_repository)
    assert refused(done, "--overlay staging") == [
        "error: no overlay named 'staging' (overlays/staging does not exist); the overlays are dev, pool, prod"]
    config = write(shared_repository / "mpigen.yaml", CONFIG.replace("[dev, prod]", "[dev, staging]"))
    done = run_mpigen("validate", cwd=shared_repository)
    line, column = pos(config, "staging]", "staging")
    assert refused(done, "mpigen.yaml overlays") == [  # at its line in mpigen.yaml
        f"mpigen.yaml:{line}:{column}: error: no overlay named 'staging' (overlays/staging does not exist); the "
        "overlays are dev, pool, prod"]
    done = run_mpigen("render", "blueprints", "--overlay", "./staging", "--stdout", cwd=shared_repository)
    assert {o["metadata"]["namespace"] for o in _objects(done)} == {"staging"}  # a path still names it
