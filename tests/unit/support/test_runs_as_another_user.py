"""Every run as another user in the tests goes through the harness (tests/support/any_user.py),
checked on the source."""

from __future__ import annotations

from tests.support.paths import ROOT

# The modules that may spell out a run as another user: the copy's own check, the user
# namespace's probe, the pretend pods' containers (which run the image: the copy), and these tests.
AS_ANOTHER_USER = {"tests/support/any_user.py", "tests/support/user_namespace.py", "tests/support/e2e/container.py",
                   "tests/system/machine/test_any_user.py", "tests/unit/support/test_runs_as_another_user.py"}


def test_every_run_as_another_user_goes_through_the_harness():
    """A test that ran the clone's own python as another user (setpriv --reuid) would fail in a
    clone only its owner may enter: such runs go through output_machine.as_nobody (or
    any_user.AS_NOBODY with the copy's python)."""
    spelled = [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "tests").rglob("*.py"))
               if "--reuid" in path.read_text(encoding="utf-8")]
    assert sorted(set(spelled) - AS_ANOTHER_USER) == []
