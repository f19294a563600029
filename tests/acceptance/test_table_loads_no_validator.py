"""The table of targets loads no schema validator or live-cluster client: the models and schemas
are loaded when validate asks for them, never by rendering (a fresh interpreter's modules)."""

from __future__ import annotations

import subprocess
import sys


def test_the_table_loads_no_validator():
    """The models and schemas are loaded when validate asks for them, never by rendering."""
    script = ("import sys, mpigen.render.targets; print(sorted(m for m in ('kubeflow_trainer_api', 'jsonschema', "
              "'kubernetes_validate', 'kubernetes') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
