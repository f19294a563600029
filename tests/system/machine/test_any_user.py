"""The copy of mpigen every user may run (tests/support/any_user.py): nobody runs mpigen from it
alone, reading nothing of the clone or of the interpreter it was made from, whose folders may be
private (a clone under a home folder of mode 700, pyenv's Python under /root)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.any_user import AS_NOBODY, NOBODY, any_user_install, readable_by_all
from tests.support.blueprints import blueprint_text
from tests.support.cache_folders import environment_of
from tests.support.output_machine import need_root
from tests.support.paths import ROOT

# What nobody's process read: every module it imported and every file it mapped (the
# interpreter, libpython, extension modules), after a render (on standard error, the YAML on
# standard output).
LOADED = """
import json, sys
from mpigen.cli.main import main
code = main(["render", sys.argv[1], "--stdout"])
maps = {line.split(maxsplit=5)[5] for line in open("/proc/self/maps") if len(line.split(maxsplit=5)) == 6}
modules = {getattr(m, "__file__", None) for m in list(sys.modules.values())} - {None}
print(json.dumps({"code": code, "files": sorted(p.strip() for p in maps | modules if p.startswith("/"))}),
      file=sys.stderr)
"""


def test_nobody_renders_with_the_copy_and_reads_nothing_of_the_clone_or_its_python(tmp_path):
    need_root()
    install = any_user_install()
    blueprint = install.folder / "probe-blueprint.yaml"
    blueprint.write_text(blueprint_text("probe"))
    blueprint.chmod(0o644)
    try:
        done = subprocess.run([*AS_NOBODY, str(install.python), "-c", LOADED, str(blueprint)], cwd="/",
                              env=environment_of(NOBODY), capture_output=True, text=True, timeout=120)
    finally:
        blueprint.unlink()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stderr.splitlines()[-1])
    assert seen["code"] == 0 and "kind: StatefulSet" in done.stdout
    private = [Path(p) for p in (ROOT, sys.prefix, sys.base_prefix) if not readable_by_all(Path(p))]
    read = [Path(path) for path in seen["files"]]
    assert any(path.is_relative_to(install.site / "mpigen") for path in read)
    assert [path for path in read if any(path.is_relative_to(folder) for folder in private)] == []
    assert [path for path in read if not readable_by_all(path)] == []


def test_the_copy_holds_every_file_of_the_checkouts_mpigen():
    """Every file of the package, as the checkout has it now (a module added since the last
    install included: its metadata's file list is that install's)."""
    need_root()
    copied = any_user_install().site / "mpigen"
    package = ROOT / "mpigen"
    missing = [path.relative_to(package).as_posix() for path in sorted(package.rglob("*")) if path.is_file()
               and "__pycache__" not in path.parts and not (copied / path.relative_to(package)).is_file()]
    assert missing == []
