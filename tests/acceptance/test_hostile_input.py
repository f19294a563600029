"""Hostile input (issue 7, point 3): what a user or an attacker can put in a repository is
refused with a path-level error, exit 2 and nothing written; never followed, never hangs.
(YAML bombs, deep nesting, oversized files, binary and non-UTF-8 files: tests/acceptance/invalid_input/.)
"""

from __future__ import annotations

import os

import pytest

from tests.support.blueprints import blueprint_text, blueprint_yaml
from tests.support.command_line import run_mpigen
from tests.support.paths import BLUEPRINTS
from tests.support.rendering import by_kind, render_text
from tests.support.text import pos, write


@pytest.fixture
def repository_beside_outside(tmp_path):
    (tmp_path / "repo" / "blueprints").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "repo" / "blueprints" / "mig.yaml").write_bytes((BLUEPRINTS / "mig.yaml").read_bytes())
    (tmp_path / "outside" / "intel-pi.yaml").write_bytes((BLUEPRINTS / "intel-pi.yaml").read_bytes())
    return tmp_path / "repo"


LINKS = {
    "loop": ("..", "a symbolic link to a folder: mpigen does not follow them"),
    "outside-folder": ("../../outside", "a symbolic link to a folder: mpigen does not follow them"),
    "outside.yaml": ("../../outside/intel-pi.yaml", "a symbolic link to {outside}/intel-pi.yaml, outside the "
                                                   "searched folder and the repository"),
    "dangling.yaml": ("missing.yaml", "a symbolic link that leads nowhere (or in a loop)"),
    "self.yaml": ("self.yaml", "a symbolic link that leads nowhere (or in a loop)"),
}


@pytest.mark.parametrize("command", [["validate"], ["render", "-o", "out"], ["render", "--stdout"]])
def test_symbolic_links_that_loop_or_leave_the_repository_are_refused(repository_beside_outside, command):
    for name, (target, _) in LINKS.items():
        os.symlink(target, repository_beside_outside / "blueprints" / name)
    done = run_mpigen(*command, "blueprints", cwd=repository_beside_outside, timeout=30)
    assert done.returncode == 2 and done.stdout == b""
    outside = (repository_beside_outside.parent / "outside").resolve().as_posix()
    lines = done.stderr.decode().splitlines()
    for name, (_, message) in LINKS.items():
        assert any(line.startswith(f"error: blueprints/{name}: {message.format(outside=outside)}")
                   for line in lines), (name, lines)
    assert len(lines) == len(LINKS)
    assert not (repository_beside_outside / "out").exists()


def test_a_link_within_the_repository_is_read(repository_beside_outside):
    (repository_beside_outside / "shared").mkdir()
    (repository_beside_outside / "shared" / "intel-pi.yaml").write_bytes((BLUEPRINTS / "intel-pi.yaml").read_bytes())
    os.symlink("../shared/intel-pi.yaml", repository_beside_outside / "blueprints" / "intel-pi.yaml")
    done = run_mpigen("validate", "blueprints", cwd=repository_beside_outside)
    assert done.returncode == 0, done.stderr
    assert b"2 blueprints valid" in done.stderr


def test_a_file_named_on_the_command_line_is_read_wherever_it_is(repository_beside_outside):
    done = run_mpigen("validate", "../outside/intel-pi.yaml", cwd=repository_beside_outside)
    assert done.returncode == 0, done.stderr


def test_very_many_files(tmp_path):
    """Thousands of files, most of them not blueprints: every problem reported, in order."""
    folder = tmp_path / "blueprints"
    folder.mkdir()
    for i in range(3000):
        (folder / f"note-{i:04d}.yaml").write_text(f"just: a note {i}\n")
    bad = write(folder / "bad.yaml", blueprint_yaml("Bad"))
    done = run_mpigen("validate", "blueprints", cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[0].startswith(
        "blueprints/bad.yaml:%d:%d: error: metadata.name: " % pos(bad, "name: Bad", "Bad"))


def test_overlays_cannot_patch_fields_outside_the_blueprint_model(tmp_path):
    """An overlay can only patch blueprint fields: a key that is not one is refused at its line."""
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "mig.yaml").write_bytes((BLUEPRINTS / "mig.yaml").read_bytes())
    (tmp_path / "overlays" / "x").mkdir(parents=True)
    (tmp_path / "overlays" / "x" / "overlay.yaml").write_text(
        "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\npatches:\n"
        "  - target: {name: '*'}\n    patch: {spec: {hostPID: true}}\n")
    done = run_mpigen("render", "blueprints", "--overlay", "x", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr.decode().startswith("overlays/x/overlay.yaml:5:20: error: ")
    assert "hostPID" in done.stderr.decode()


def test_template_syntax_in_a_blueprint_is_text_never_evaluated():
    """Blueprint values reach manifests as data, never as template source: Jinja syntax in a
    command or an env value comes out as written."""
    payload = "{{ cycler.__init__.__globals__.os.system('id') }}{% raw %}"
    text = blueprint_text("job", command=["echo", payload], env={"X": "{{ 7*7 }}"})
    launcher = by_kind(render_text(text))["Job"]["spec"]["template"]["spec"]["containers"][0]
    assert launcher["command"][-1] == payload
    assert {"name": "X", "value": "{{ 7*7 }}"} in launcher["env"]


def test_mpigen_templates_run_sandboxed_and_strict():
    """The shipped templates (hostfile, kubexec.sh) render in Jinja's sandbox, where a missing
    variable is an error rather than an empty string."""
    import jinja2
    from jinja2.sandbox import SecurityError

    from mpigen.render.parts.scripts import template as shipped

    template = shipped("hostfile.j2")
    assert template.environment.sandboxed
    with pytest.raises(jinja2.UndefinedError):
        template.render()
    with pytest.raises(SecurityError):
        template.environment.from_string("{{ ''.__class__.__mro__ }}").render()
