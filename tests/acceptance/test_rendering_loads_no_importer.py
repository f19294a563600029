"""`mpigen render` never imports the import stage nor a target's declared importer (a fresh
interpreter's modules after a render)."""

from __future__ import annotations

import subprocess
import sys

from mpigen.render.targets import TARGETS
from tests.support.paths import ROOT

DECLARED = [target for target in TARGETS.values() if target.importer is not None]


def test_rendering_loads_no_importer():
    """The declared decompilers are loaded by a function: `mpigen render` never imports them, nor the stage."""
    code = ("import sys\nfrom mpigen.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
            "    pass\nprint('\\n'.join(sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code, "render", "blueprints/mpich-pi.yaml", "--stdout"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    modules = set(done.stderr.split())
    assert "mpigen.pipeline" in modules  # it did render
    assert not {name for name in modules if name == "mpigen.importer" or name.startswith("mpigen.importer.")}
    assert not modules & {target.importer.decompiler().__name__ for target in DECLARED}
