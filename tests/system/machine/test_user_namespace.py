"""`make test` for a user who is not root (tests/support/user_namespace.py): where the machine
does not give the user a user namespace with other users in it, one line says what to add, and
the run stops (exit 2) rather than let the tests that need root skip."""

from __future__ import annotations

import subprocess

from tests.support.any_user import AS_NOBODY, NOBODY, any_user_install
from tests.support.cache_folders import environment_of
from tests.support.output_machine import need_root
from tests.support.paths import ROOT


def test_a_user_with_no_subordinate_ids_is_told_in_one_line_what_to_add():
    """User nobody has no range in /etc/subuid (and, on a machine without uidmap, no newuidmap)."""
    need_root()
    install = any_user_install()
    script = install.add(ROOT / "tests" / "support" / "user_namespace.py")
    done = subprocess.run([*AS_NOBODY, str(install.python), str(script), "true"], cwd="/",
                          env=environment_of(NOBODY), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("make test: a user who is not root runs the suite as root of a user namespace, but ")
    assert "sudo apt-get install -y uidmap" in line or "sudo usermod --add-subuids" in line, line
