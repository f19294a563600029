"""Overlays on the command line: `--overlay` by name, folder and file, output folders named
after the overlay folders.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.overlays import add_blueprint, at, overlay, refused
from tests.support.text import write


# --- 7. --overlay on the command line -----------------------------------------------------------

def test_overlay_by_name_folder_and_file_stream_in_the_order_given():
    write("blueprints/job.yaml", blueprint_text("job"))
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: staging\n", folder="envs")
    overlay("prod", "namespace: prod\n", folder="elsewhere", file="prod.yml")
    done = run_mpigen("render", "blueprints", "--overlay", "elsewhere/prod/prod.yml", "--overlay", "dev",
                      "--overlay", "envs/staging", "--stdout", cwd=Path.cwd())
    assert done.returncode == 0, done.stderr.decode()
    text = done.stdout.decode()
    sources = [line for line in text.splitlines() if line.startswith("# Source:")]
    expected = [f"# Source: blueprints/job.yaml, {path}" for path in
                ("elsewhere/prod/prod.yml", "overlays/dev/overlay.yaml", "envs/staging/overlay.yaml")]
    assert len(sources) == 18
    assert sources == [expected[0]] * 6 + [expected[1]] * 6 + [expected[2]] * 6
    namespaces = [o["metadata"]["namespace"] for o in yaml.safe_load_all(text) if o]
    assert namespaces == ["prod"] * 6 + ["dev"] * 6 + ["staging"] * 6


def test_output_folders_are_named_after_the_overlay_folders(cli):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: st\n", folder="envs")
    done = cli("render", "blueprints", "--overlay", "dev", "--overlay", "envs/staging/overlay.yaml", "-o", "out")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in Path("out").iterdir()) == [".mpigen-index", "dev", "staging"]
    assert (Path("out/dev/dev/job-job-launcher.yaml")).is_file()
    assert (Path("out/staging/st/job-job-launcher.yaml")).is_file()


def test_two_overlays_with_the_same_folder_name_are_an_error(cli, previous):
    add_blueprint("job")
    overlay("dev", "namespace: a\n")
    text = overlay("dev", "namespace: b\n", folder="team")
    errors = refused(cli, previous, "blueprints", "--overlay", "dev", "--overlay", "team/dev")
    assert errors == [f"{at('team/dev/overlay.yaml', text, 'apiVersion')}: error: two overlays are named 'dev' "
                      "(also overlays/dev/overlay.yaml); an overlay's folder name names its output folder, so it "
                      "must be unique"]


def test_unknown_overlay_is_an_error(cli, previous):
    """On the command line there is no file to point at: a plain `error:` line, without a
    made-up position, naming what there is."""
    add_blueprint("job")
    assert refused(cli, previous, "blueprints", "--overlay", "nope") == [
        "error: no overlay named 'nope' (overlays/nope does not exist); there are no overlays yet: an overlay is "
        "a folder under overlays/ holding one file of kind Overlay"]


def test_unknown_overlay_lists_the_overlays_and_suggests_the_nearest(cli, previous):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: staging\n")
    assert refused(cli, previous, "blueprints", "--overlay", "stagng") == [
        "error: no overlay named 'stagng' (overlays/stagng does not exist); the overlays are dev, staging; "
        "did you mean 'staging'?"]
    assert refused(cli, previous, "blueprints", "--overlay", "qa") == [
        "error: no overlay named 'qa' (overlays/qa does not exist); the overlays are dev, staging"]


def test_the_same_overlay_named_twice_is_rendered_once(cli):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    streamed = cli("render", "blueprints", "--overlay", "dev", "--overlay", "overlays/dev/overlay.yaml", "--stdout")
    written = cli("render", "blueprints", "--overlay", "dev", "--overlay", "overlays/dev/overlay.yaml", "-o", "out")
    for done in (streamed, written):
        assert done.returncode in (0, 2), done.stderr
        assert "internal error" not in done.stderr
    if streamed.returncode == 0:
        assert len(streamed.objects()) == 6
