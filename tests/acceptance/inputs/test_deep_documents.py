"""A 4 MiB file of open brackets is one positioned error, not a crash (a segfault or a
RecursionError): read in a process of its own, with libyaml and with the pure Python loader, and
through the command line. The loader's nesting rules are unit-tested in tests/unit/load/test_documents.py."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import yaml

from mpigen.errors import InputError
from mpigen.load.files import MAX_FILE_BYTES
from mpigen.load.parser import MAX_DEPTH
from tests.support.command_line import run_mpigen
from tests.support.paths import ROOT

DEEP = f"nesting is deeper than {MAX_DEPTH} levels"


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_a_4_mib_file_of_open_brackets_is_an_error_not_a_crash(tmp_path, pure):
    if not pure and not hasattr(yaml, "CSafeLoader"):
        pytest.skip("PyYAML is built without libyaml")
    big = tmp_path / "big.yaml"
    big.write_bytes(b"[" * MAX_FILE_BYTES)
    code = textwrap.dedent(f"""\
        import sys
        import yaml
        if {pure!r}:
            del yaml.CSafeLoader
        from pathlib import Path
        from mpigen.errors import InputError
        from mpigen.load.parser import load_file
        try:
            load_file(Path("big.yaml"))
        except InputError as exc:
            print(exc)
        else:
            print("no error")
        """)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr  # a segfault or a RecursionError would not be 0
    assert done.stdout == f"big.yaml:1:65: error: {DEEP}\n"
    assert done.stderr == ""


def test_a_4_mib_file_of_open_brackets_through_the_cli(tmp_path):
    (tmp_path / "big.yaml").write_bytes(b"[" * MAX_FILE_BYTES)
    done = run_mpigen("validate", "big.yaml", cwd=tmp_path, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith(f"big.yaml:1:65: error: {DEEP}\n")
    assert "Traceback" not in done.stderr
