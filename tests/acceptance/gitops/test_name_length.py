"""Name lengths with the run suffix of a GitOps profile: an error at metadata.name where
only the suffix makes it too long (the worker pod's; the StatefulSet's over 52:
tests/acceptance/invalid_input/test_statefulset_name.py).

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import pytest

from tests.support.gitops import PROFILES, blueprint
from tests.support.text import pos, write


# --- 8. name length with the run suffix ----------------------------------------------------------

def _named(length: int) -> str:
    return "n" * length


# The operator's worker pods (--target mpijob): the static target's StatefulSet allows shorter
# names still (tests/acceptance/invalid_input/test_statefulset_name.py).

@pytest.mark.parametrize("profile", PROFILES)
def test_a_name_that_fits_only_without_the_run_suffix_is_an_error_at_metadata_name(cli, profile):
    # 2 workers: the last pod is <name>-<run>-worker-1, 16 characters more than the name;
    # a 48-character name gives 64 (at most 47 fits), while without the run suffix the pod
    # name is 57 characters.
    name = _named(48)
    text = write("bp/long.yaml", blueprint(name, workers=2))
    done = cli("render", "bp", "--stdout", "--target", "mpijob", "--gitops", profile)
    assert done.returncode == 2
    assert done.stdout == b""
    line, column = pos(text, f'"{name}"')
    errors = [line_ for line_ in done.stderr.splitlines() if ": error: " in line_]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"bp/long.yaml:{line}:{column}: error: metadata.name: ")
    assert "64 characters" in errors[0] and "63" in errors[0] and "at most 47 characters" in errors[0]
    assert f"--gitops {profile}" in errors[0]
    plain = cli("render", "bp", "--stdout", "--target", "mpijob", "--gitops", "none")
    assert plain.returncode == 0, plain.stderr


@pytest.mark.parametrize("profile", PROFILES)
def test_the_longest_name_that_fits_with_the_run_suffix_renders(cli, profile):
    write("bp/long.yaml", blueprint(_named(47), workers=2))
    done = cli("render", "bp", "--stdout", "--target", "mpijob", "--gitops", profile)
    assert done.returncode == 0, done.stderr
    [job] = [o for o in done.objects() if o["kind"] == "MPIJob"]
    assert len(f"{job['metadata']['name']}-worker-1") == 63
