"""What `mpigen diff` makes of a change under a GitOps profile: a new run, an in-place
change, an immutable one, GPUs released by a completed run.

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import pytest

from tests.support.command_line import InProcessRun
from tests.support.gitops import PROFILES, blueprint
from tests.support.text import write


# --- 3. mpigen diff on two renders ----------------------------------------------------------------

def _two_renders(cli, profile: str, old_text: str, new_text: str) -> InProcessRun:
    write("bp/train.yaml", old_text)
    assert cli("render", "bp", "-o", "old", "--gitops", profile).returncode == 0
    write("bp/train.yaml", new_text)
    assert cli("render", "bp", "-o", "new", "--gitops", profile).returncode == 0
    return cli("diff", "old", "new")


DIFF_EDITS = {
    "image": dict(image="example.com/train:2"),
    "command": dict(command=["python", "train.py", "--epochs", "2"]),
    "workers": dict(workers=4),
    "gpusPerWorker": dict(gpusPerWorker=4),
}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("edit", sorted(DIFF_EDITS))
def test_diff_of_a_run_defining_edit_is_a_new_run_and_nothing_immutable(cli, profile, edit):
    done = _two_renders(cli, profile, blueprint("train", gpusPerWorker=2),
                        blueprint("train", **{"gpusPerWorker": 2, **DIFF_EDITS[edit]}))
    text = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert "starts a new run" in text
    assert "ends the run" in text
    assert "IMMUTABLE" not in text
    assert "6 added, 6 removed, 0 changed; 0 immutable changes" in text
    assert cli("diff", "old", "new", "--fail-on", "immutable").returncode == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_diff_of_a_label_edit_changes_objects_in_place(cli, profile):
    done = _two_renders(cli, profile, blueprint("train", labels={"team": "a"}),
                        blueprint("train", labels={"team": "b"}))
    text = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert "starts a new run" not in text and "ends the run" not in text
    assert "restarts the workers" not in text
    assert "IMMUTABLE" not in text
    assert "0 added, 0 removed, 6 changed; 0 immutable changes" in text
    changed = [line.strip() for line in text.splitlines() if line.startswith("      ")]
    assert changed and all(line == 'metadata.labels.team: "a" -> "b"' for line in changed), changed


def test_diff_of_an_image_edit_without_a_profile_is_immutable(cli):
    done = _two_renders(cli, "none", blueprint("train"), blueprint("train", image="example.com/train:2"))
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "IMMUTABLE: Kubernetes refuses to change spec.template of Job team/train-launcher" in text
    assert "starts a new run" not in text
    assert cli("diff", "old", "new", "--fail-on", "immutable").returncode == 1


def test_diff_of_completing_a_run_releases_the_gpus_without_a_new_run(cli):
    done = _two_renders(cli, "argocd", blueprint("train", gpusPerWorker=2),
                        blueprint("train", gpusPerWorker=2, state="completed"))
    text = done.stdout.decode()
    assert done.returncode == 1
    assert "GPUs 4 -> 0" in text
    assert "starts a new run" not in text and "ends the run" not in text and "IMMUTABLE" not in text
    assert "0 added, 0 removed, 1 changed" in text
