"""An unreadable blueprint file or folder (at any depth), overlay, base overlay or mpigen.yaml
is `error: PATH: ...` with how to fix it, exit 2, and the committed output stays byte for
byte as it was (dropping the input would drop its jobs from the output, and Argo CD or Flux
would prune them); issue 15, defect 2. Root reads everything, so these run as the user
nobody (setpriv) when the tests run as root.
"""

from __future__ import annotations

import os

import pytest

from tests.support.command_line import run_mpigen
from tests.support.input_repository import COMMANDS, NOBODY, SEARCHED, refused, snapshot
from tests.support.output_machine import as_nobody, chown_tree
from tests.support.text import write


@pytest.fixture
def unprivileged(shared_repository):
    """unprivileged(*ARGS, cwd=...) runs mpigen as a user for whom chmod 000 means
    unreadable: this user when it is not root, else nobody (output_machine.as_nobody: the copy
    of mpigen every user may run), who is then given the repository (mpigen uses no other
    user's mpigen.yaml: docs/cli.md); chmod 000 locks a file from its owner as from anyone but root."""
    if os.geteuid() != 0:
        return run_mpigen
    chown_tree(shared_repository, NOBODY, NOBODY)
    return as_nobody


READ = "make it readable (chmod a+r)"
LIST = "make it readable (chmod a+rx)"


UNREADABLE = {
    # what is made unreadable: (path, mode, the error lines every command must print)
    "blueprint-file": ("blueprints/one.yaml", 0o000, [
        f"error: blueprints/one.yaml: cannot read file: Permission denied; {READ} {SEARCHED}"]),
    "blueprint-folder": ("blueprints/team", 0o000, [
        f"error: blueprints/team: cannot read folder: Permission denied; {LIST} {SEARCHED}"]),
    "blueprint-folder-deep": ("blueprints/team/deep", 0o000, [
        f"error: blueprints/team/deep: cannot read folder: Permission denied; {LIST} {SEARCHED}"]),
    "blueprint-folder-not-searchable": ("blueprints/team", 0o644, [
        f"error: blueprints/team/deep: cannot read folder: Permission denied; {LIST} {SEARCHED}",
        "error: blueprints/team/two.yaml: cannot reach it: Permission denied; make the folders above it "
        f"searchable (chmod a+x) {SEARCHED}"]),
    "overlay-file": ("overlays/prod/overlay.yaml", 0o000, [
        f"error: overlays/prod/overlay.yaml: cannot read file: Permission denied; {READ} or stop using this overlay"]),
    "overlay-folder": ("overlays/dev", 0o000, [
        f"error: overlays/dev: cannot read folder: Permission denied; {LIST} or stop using this overlay"]),
    "base-overlay-file": ("overlays/pool/overlay.yaml", 0o000, [
        f"error: overlays/pool/overlay.yaml: cannot read file: Permission denied; {READ} or stop using this overlay"]),
    "base-overlay-folder": ("overlays/pool", 0o000, [
        f"error: overlays/pool: cannot read folder: Permission denied; {LIST} or stop using this overlay"]),
    "config": ("mpigen.yaml", 0o000, [
        f"error: mpigen.yaml: cannot read file: Permission denied; {READ} or run mpigen in another folder"]),
}


@pytest.mark.parametrize("case", UNREADABLE)
def test_an_unreadable_input_is_an_error_and_the_committed_output_stays(shared_repository, unprivileged, case):
    path, mode, expected = UNREADABLE[case]
    (shared_repository / path).chmod(mode)
    before = snapshot(shared_repository)
    for name, args in COMMANDS.items():
        done = unprivileged(*args, cwd=shared_repository)
        assert refused(done, f"{case}, {name}") == expected, name
        assert snapshot(shared_repository) == before, f"{case}, {name}: the repository changed"


def test_the_user_can_read_the_repository_when_nothing_is_locked(shared_repository, unprivileged):
    """The cases above fail because of the one locked path, not because of the user."""
    for name, args in COMMANDS.items():
        done = unprivileged(*args, cwd=shared_repository)
        assert done.returncode == 0, (name, done.stderr.decode())


def test_a_readable_file_that_is_not_yaml_still_warns_and_is_skipped(shared_repository):
    """Not a read failure: the file was read, and nothing in it looks like a blueprint."""
    write(shared_repository / "blueprints/notes.yaml", "{{ a template, not YAML\n")
    done = run_mpigen("validate", cwd=shared_repository)
    assert done.returncode == 0, done.stderr.decode()
    (line,) = [line for line in done.stderr.decode().splitlines() if "notes.yaml" in line]
    assert line.startswith("blueprints/notes.yaml:") and ": warning: invalid YAML: " in line
    assert line.endswith("; skipped (not recognisable as a blueprint)")
