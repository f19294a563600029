"""Name lengths with the run suffix of a GitOps profile: an error at metadata.name where
only the suffix makes it too long, a warning for a StatefulSet name over 52.

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


@pytest.mark.parametrize("profile", PROFILES)
def test_a_name_that_fits_only_without_the_run_suffix_is_an_error_at_metadata_name(cli, profile):
    # 2 workers: the last pod is <name>-<run>-worker-1, 16 characters more than the name;
    # a 48-character name gives 64 (at most 47 fits), while without the run suffix the pod
    # name is 57 characters (the StatefulSet name, 55, only draws the 52-character warning).
    name = _named(48)
    text = write("bp/long.yaml", blueprint(name, workers=2))
    done = cli("render", "bp", "--stdout", "--gitops", profile)
    assert done.returncode == 2
    assert done.stdout == b""
    line, column = pos(text, f'"{name}"')
    errors = [line_ for line_ in done.stderr.splitlines() if ": error: " in line_]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"bp/long.yaml:{line}:{column}: error: metadata.name: ")
    assert "64 characters" in errors[0] and "63" in errors[0] and "at most 47 characters" in errors[0]
    assert f"--gitops {profile}" in errors[0]
    plain = cli("render", "bp", "--stdout", "--gitops", "none")
    assert plain.returncode == 0, plain.stderr
    assert len(plain.objects()) == 6


@pytest.mark.parametrize("profile", PROFILES)
def test_the_longest_name_that_fits_with_the_run_suffix_renders(render, profile):
    rendered = render(blueprint(_named(47), workers=2), profile)
    pods = [line.split()[0] for line in rendered.kinds["ConfigMap"]["data"]["hostfile"].splitlines()]
    assert max(len(p) for p in pods) == 63


@pytest.mark.parametrize("profile", PROFILES)
def test_a_statefulset_name_over_52_only_with_the_run_suffix_is_a_warning(cli, profile):
    # <name>-<run>-worker is the name plus 14 characters: 39 gives 53 (at most 38 fits);
    # without the run the StatefulSet name is 46 characters, no warning.
    name = _named(39)
    text = write("bp/long.yaml", blueprint(name, workers=2))
    done = cli("render", "bp", "--stdout", "--gitops", profile)
    assert done.returncode == 0, done.stderr
    assert len(done.objects()) == 6
    line, column = pos(text, f'"{name}"')
    warnings = [line_ for line_ in done.stderr.splitlines() if ": warning: metadata.name: " in line_]
    assert len(warnings) == 1, done.stderr
    assert warnings[0].startswith(f"bp/long.yaml:{line}:{column}: warning: metadata.name: ")
    assert "52" in warnings[0] and "at most 38 characters" in warnings[0]
    assert f"--gitops {profile}" in warnings[0]
    plain = cli("render", "bp", "--stdout", "--gitops", "none")
    assert plain.returncode == 0 and "metadata.name" not in plain.stderr
    write("bp/long.yaml", blueprint(_named(38), workers=2))
    assert "metadata.name" not in cli("render", "bp", "--stdout", "--gitops", profile).stderr
