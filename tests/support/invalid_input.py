"""The invalid-input cases and their check (tests/acceptance/invalid_input/): the three
commands of a case run concurrently in bounded memory, the expected error lines, the
base blueprint and its variants, and the working folder before and after."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_yaml
from tests.support.command_line import MPIGEN
from tests.support.text import pos


REPO = Path(__file__).resolve().parents[2]
MNIST = REPO / "blueprints" / "tensorflow-mnist.yaml"

MODES = {
    "validate": lambda paths: ["validate", *paths],
    "render -o": lambda paths: ["render", *paths, "-o", "out"],
    "render --stdout": lambda paths: ["render", *paths, "--stdout"],
}
ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): error: (?P<message>.+)$")
# A problem of a whole path has no position: `error: PATH: MESSAGE` (line and column 0 here).
PATH_ERROR_LINE = re.compile(r"^error: (?P<path>[^:]+): (?P<message>.+)$")
RUN_TIMEOUT = 60
BOMB_TIMEOUT = 10
MEMORY_LIMIT = 768 * 1024 * 1024  # address space; a whole render of the examples fits in it


# --- helpers ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    mode: str
    returncode: int
    stdout: bytes
    stderr: str


def env() -> dict[str, str]:
    environ = dict(os.environ)
    environ.pop("MPIGEN_DEBUG", None)  # would turn internal errors into tracebacks on purpose
    return environ


def bounded_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_modes(cwd: Path, paths, modes=tuple(MODES), timeout: float = RUN_TIMEOUT) -> list[Outcome]:
    """Run `python -m mpigen` once per mode, concurrently, in cwd, in bounded memory."""
    procs = [
        (mode, subprocess.Popen([*MPIGEN, *MODES[mode](list(paths))], cwd=cwd, env=env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=bounded_memory))
        for mode in modes
    ]
    outcomes = []
    try:
        for mode, proc in procs:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                pytest.fail(f"mpigen {mode} did not finish within {timeout} s")
            outcomes.append(Outcome(mode, proc.returncode, stdout, stderr.decode("utf-8", "replace")))
    finally:
        for _, proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return outcomes


def run_modes_in_process(cwd: Path, paths, modes=tuple(MODES), timeout: float = RUN_TIMEOUT) -> list[Outcome]:
    """run_modes in this process, one mode after the other (no memory bound, no time limit)."""
    from tests.support.cases import run_in_process

    outcomes = []
    for mode in modes:
        code, stdout, stderr = run_in_process(MODES[mode](list(paths)), cwd)
        outcomes.append(Outcome(mode, code, stdout, stderr.decode("utf-8", "replace")))
    return outcomes


def mpigen_in_process(*args: str, cwd: Path, text: bool = False, **_ignored) -> subprocess.CompletedProcess:
    """run_mpigen's result (returncode, stdout, stderr; str with text=True) from mpigen.cli.main.main
    run in this process in `cwd` (run_mpigen's env and timeout are a process's: ignored)."""
    from tests.support.cases import run_in_process

    code, stdout, stderr = run_in_process(list(args), cwd)
    if text:
        return subprocess.CompletedProcess(list(args), code, stdout.decode("utf-8"), stderr.decode("utf-8"))
    return subprocess.CompletedProcess(list(args), code, stdout, stderr)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root (hidden ones too) with its type and, for files, its bytes."""
    state: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[rel] = ("symlink", os.readlink(path))
            elif path.is_dir():
                state[rel] = ("dir",)
            else:
                state[rel] = ("file", path.read_bytes())
    return state


def check_refused(outcome: Outcome, expected) -> None:
    """Exit 2, exactly the expected error lines (positions in file order), no traceback,
    nothing on stdout. `expected` holds (path, line, column, message substrings)."""
    where = f"mpigen {outcome.mode}; stderr was:\n{outcome.stderr}"
    assert "Traceback" not in outcome.stderr, where
    assert b"Traceback" not in outcome.stdout, where
    assert outcome.returncode == 2, where
    assert outcome.stdout == b"", f"{where}\nstdout was:\n{outcome.stdout[:2000]!r}"
    errors = []
    for line in outcome.stderr.splitlines():
        if line.startswith("error: "):
            match = PATH_ERROR_LINE.match(line)
            assert match, f"error line not of the form error: PATH: MESSAGE: {line!r}\n{where}"
            errors.append((match["path"], 0, 0, match["message"]))
        elif ": error: " in line:
            match = ERROR_LINE.match(line)
            assert match, f"error line not of the form PATH:LINE:COLUMN: error: MESSAGE: {line!r}\n{where}"
            errors.append((match["path"], int(match["line"]), int(match["column"]), match["message"]))
    assert [e[:3] for e in errors] == [e[:3] for e in expected], where
    unused = list(errors)
    for path, line, column, needles in expected:
        fits = [e for e in unused if e[:3] == (path, line, column) and all(n in e[3] for n in needles)]
        assert fits, f"no error at {path}:{line}:{column} mentions all of {needles!r}\n{where}"
        unused.remove(fits[0])


# --- cases --------------------------------------------------------------------------------

BASE = blueprint_yaml("demo", "labels:\n  team: vision\n", """\
      framework: horovod
      image: horovod/horovod:0.28.1
      workers: 4
      gpusPerWorker: 1
      command: [python, /examples/train.py]
      env:
        NCCL_DEBUG: INFO
      resources:
        worker: {cpu: "2", memory: 4Gi}
        launcher: {cpu: "1", memory: 2Gi}
      datasets:
        - name: imagenet
          mountPath: /data/imagenet
          pvc: imagenet-claim
      runPolicy:
        backoffLimit: 3
    """)


def variant(*edits: tuple[str, str], text: str = BASE) -> str:
    """BASE with each (old, new) replacement applied; `old` must occur exactly once."""
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} must occur exactly once"
        text = text.replace(old, new)
    return text


def add_dataset(item: str) -> str:
    """BASE with a second dataset list item (given dedented) after the first."""
    return variant(("      pvc: imagenet-claim\n",
                    "      pvc: imagenet-claim\n" + textwrap.indent(textwrap.dedent(item), "    ")))


@dataclass(frozen=True)
class Case:
    files: dict          # relative path -> text (str) or raw bytes
    expected: tuple      # ((path, line, column, (message substrings, ...)), ...) in file order
    args: tuple = ("bad.yaml",)
    dirs: tuple = ()     # empty folders to create
    timeout: float = RUN_TIMEOUT


def err(text, needle, sub=None, *, msg, path="bad.yaml", after=None):
    return (path, *pos(text, needle, sub, after), tuple(msg))


def single(text, needle, sub=None, *, msg, path="bad.yaml", after=None, **extra) -> Case:
    """One file with one problem, at `needle` (or at `sub` inside it) in text."""
    return Case({path: text}, (err(text, needle, sub, msg=msg, path=path, after=after),), args=(path,), **extra)


def param(case_id: str, case: Case, marks=()):
    return pytest.param(case, id=case_id, marks=list(marks))


def long_name(length: int, workers: int) -> str:
    return variant(("  name: demo\n", f"  name: {'a' * length}\n"), ("  workers: 4\n", f"  workers: {workers}\n"))


DEPLOYMENT = textwrap.dedent("""\
    # A plain Kubernetes Deployment, not a blueprint.
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      replicas: 2
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
            - name: web
              image: nginx:1.27
    """)

# The classic "billion laughs": 9 levels of 9 aliases, 9**9 strings once expanded.
ALIAS_BOMB = textwrap.dedent("""\
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    """)

BINARY = BASE.encode().replace(b"name: demo", b"name: de\x00mo")
LATIN1 = variant(("  image: horovod/horovod:0.28.1\n",
                  "  image: horovod/horovod:0.28.1  # built by Jos\xe9\n")).encode("latin-1")
TWO_DOCUMENTS = BASE + "---\n" + BASE
NAMESPACED = variant(("  name: demo\n", "  name: demo\n  namespace: ml-team\n"))

# The base blueprint with a YAML syntax error (a second colon in the image).
yaml_syntax = variant(("  image: horovod/horovod:0.28.1\n", "  image: horovod/horovod: 0.28.1\n"))


def check_case(case: Case, tmp_path: Path, previous_render: Path, run=run_modes) -> None:
    for rel, content in case.files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    for rel in case.dirs:
        (tmp_path / rel).mkdir(parents=True)
    shutil.copytree(previous_render, tmp_path / "out", symlinks=True)
    before = snapshot(tmp_path)
    assert "out/README.md" in before and "out/.mpigen-index" in before

    for outcome in run(tmp_path, case.args, timeout=case.timeout):
        check_refused(outcome, case.expected)

    after = snapshot(tmp_path)
    assert sorted(after) == sorted(before), "a failed run created or removed files"
    assert [p for p in before if after[p] != before[p]] == [], "a failed run changed files"


def check_case_file(case, tmp_path: Path, previous_render: Path) -> None:
    """A case file of tests/cases/invalid_input/ (tests/support/cases.py) in this process, under
    each of the three commands (validate, render -o out, render --stdout) beside an earlier
    render in out/: each prints exactly the case's output, and no file is created, removed or
    changed."""
    from tests.support.cases import run_case

    shutil.copytree(previous_render, tmp_path / "out", symlinks=True)
    (tmp_path / case.input_name).write_text(case.source, encoding="utf-8")
    before = snapshot(tmp_path)
    assert "out/README.md" in before and "out/.mpigen-index" in before
    for mode, command in MODES.items():
        printed = run_case(case, tmp_path, command([case.input_name]))
        assert printed.text() == case.expected.text(), f"mpigen {mode}: {case.path.name}"
        after = snapshot(tmp_path)
        assert sorted(after) == sorted(before), f"mpigen {mode} created or removed files"
        assert [p for p in before if after[p] != before[p]] == [], f"mpigen {mode} changed files"
