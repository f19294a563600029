"""The unit tier runs in this process, as the user running the suite (tests/support/tiers.py):
no module of tests/unit starts a process (subprocess, multiprocessing, os.system, os.fork, the
os.exec and os.spawn families, `python -m mpigen` through run_mpigen), runs as another user
(tests/support/any_user.py) or needs root (need_root, tmpfs mounts, chown). Checked on the
source, one test naming every offender at its line; the fixtures are checked by tests/conftest.py."""

from __future__ import annotations

import ast

from tests.support.paths import ROOT

UNIT = ROOT / "tests" / "unit"
MODULES = {"subprocess", "multiprocessing", "concurrent.futures", "pty", "tests.support.any_user",
           "tests.support.user_namespace", "tests.support.e2e.container", "tests.support.prometheus_server"}
NAMES = {"run_mpigen": "runs mpigen in a subprocess", "MPIGEN": "runs mpigen in a subprocess",
         "need_root": "needs root", "tmpfs": "mounts a tmpfs (root)", "as_nobody": "runs as another user",
         "chown": "changes an owner (root)", "lchown": "changes an owner (root)", "chown_tree": "changes owners (root)",
         "system": "starts a shell", "popen": "starts a process", "fork": "starts a process",
         "forkpty": "starts a process", "posix_spawn": "starts a process", "posix_spawnp": "starts a process"}
PREFIXES = ("exec", "spawn")  # os.execv..., os.spawnl...


def offences(text: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [f"{where}:{node.lineno}: imports {a.name}" for a in node.names
                      if any(a.name == m or a.name.startswith(m + ".") for m in MODULES)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if any(node.module == m or node.module.startswith(m + ".") for m in MODULES):
                found.append(f"{where}:{node.lineno}: imports {node.module}")
            found += [f"{where}:{node.lineno}: imports {a.name}, which {NAMES[a.name]}" for a in node.names
                      if a.name in NAMES and node.module.startswith("tests.")]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr in NAMES or node.attr.startswith(PREFIXES):
                found.append(f"{where}:{node.lineno}: os.{node.attr}")
    return sorted(found, key=lambda entry: int(entry.split(":")[1]))


def test_no_unit_test_starts_a_process_or_needs_root():
    found = [f for path in sorted(UNIT.rglob("*.py"))
             for f in offences(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]
    assert not found, ("a unit test calls functions in this process; move these to tests/acceptance (the command "
                       "line) or tests/system (tools, root, other users):\n" + "\n".join(found))


def test_the_check_finds_each_way_of_starting_a_process():
    text = ("import subprocess\nfrom multiprocessing import get_context\nimport os\nos.system('true')\n"
            "os.chown('x', 1, 1)\nos.execv('a', [])\nfrom tests.support.command_line import run_mpigen\n"
            "from tests.support.output_machine import need_root, sticky_folder\nos.path.join('a')\n")
    assert offences(text, "t.py") == [
        "t.py:1: imports subprocess", "t.py:2: imports multiprocessing", "t.py:4: os.system", "t.py:5: os.chown",
        "t.py:6: os.execv", "t.py:7: imports run_mpigen, which runs mpigen in a subprocess",
        "t.py:8: imports need_root, which needs root"]
