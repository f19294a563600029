"""Loading blueprints never imports ruamel.yaml (the writer's library): checked on a fresh
interpreter's modules."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import BLUEPRINTS, ROOT


def test_loading_does_not_import_ruamel():
    code = ("import sys\nfrom pathlib import Path\nimport mpigen.load.blueprints as load\n"
            f"load.load_blueprints([Path({str(BLUEPRINTS)!r})])\n"
            "print(sorted(m for m in sys.modules if m.startswith('ruamel')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
