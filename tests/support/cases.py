"""Case files (tests/cases/<table>/<case>.yaml), as black's tests/data/cases: one file per case
of a table of blueprint text -> what mpigen prints, run in this process through the command
line's own entry (mpigen.cli.main.main), never in a subprocess.

A case file is the input file itself, then what mpigen prints for it:

    # mpigen validate job.yaml
    apiVersion: mpigen.dev/v1alpha1
    ...
    # output: exit 2, stdout empty
    job.yaml:12:9: error: spec.datasets[0].name: ...

Everything above the `# output:` line is written as the file the command names last (job.yaml),
its first line (a YAML comment) included, so the positions printed are the case file's own
lines. The first line is the command (`mpigen ARGS FILE`). The `# output:` line holds the exit code and whether stdout is empty
(a render's objects are the golden tests' business); below it, stderr exactly, line for line
(the run's folder written <tmp>). A case whose stderr is empty says the check stays quiet.

`python -m tests.support.cases --update [TABLE...]` rewrites the output part of every case
file (or of the tables named) from what mpigen prints now: review the diff as a golden diff.
"""

from __future__ import annotations

import difflib
import io
import os
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT

CASES = ROOT / "tests" / "cases"
COMMAND = "# mpigen "
OUTPUT = "# output: "


@dataclass(frozen=True)
class Printed:
    """What a run printed: exit code, whether stdout was empty, stderr's lines."""

    code: int
    stdout_empty: bool
    stderr: tuple[str, ...]

    def header(self) -> str:
        return f"{OUTPUT}exit {self.code}, stdout {'empty' if self.stdout_empty else 'written'}"

    def text(self) -> str:
        return "".join(f"{line}\n" for line in (self.header(), *self.stderr))


@dataclass(frozen=True)
class Case:
    path: Path
    source: str          # the input file, first line the command
    expected: Printed | None

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def args(self) -> list[str]:
        first = self.source.split("\n", 1)[0]
        assert first.startswith(COMMAND), f"{self.path}: the first line is `{COMMAND}ARGS FILE`"
        return first[len(COMMAND):].split()


    @property
    def input_name(self) -> str:
        return self.args[-1]


def read_case(path: Path) -> Case:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith(OUTPUT)), None)
    if at is None:
        return Case(path, text, None)
    header = lines[at][len(OUTPUT):].strip()
    code_part, stdout_part = (part.strip() for part in header.split(","))
    assert code_part.startswith("exit ") and stdout_part in ("stdout empty", "stdout written"), (path, header)
    expected = Printed(int(code_part[len("exit "):]), stdout_part == "stdout empty",
                       tuple(line.rstrip("\n") for line in lines[at + 1:]))
    return Case(path, "".join(lines[:at]), expected)


def table(name: str) -> list[Case]:
    """The cases of tests/cases/<name>/, by file name."""
    paths = sorted((CASES / name).glob("*.yaml"))
    assert paths, f"no case files in {CASES / name}"
    return [read_case(path) for path in paths]


@contextmanager
def captured(printed: dict):
    """sys.stdout and sys.stderr as binary-backed text streams, as a pipe gives them; their
    bytes put into printed["out"] and printed["err"] on leaving."""
    saved = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    try:
        yield
    finally:
        for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
            stream.flush()
            printed[key] = stream.detach().getvalue()
        sys.stdout, sys.stderr = saved


def run_case(case: Case, folder: Path, args: list[str] | None = None) -> Printed:
    """`mpigen ARGS` in this process, in `folder` (which it changes into and out of), the case's
    input written as the file its command names last (job.yaml); `args` instead of its command."""
    (folder / case.input_name).write_text(case.source, encoding="utf-8")
    code, out, err = run_in_process(case.args if args is None else args, folder)
    stderr = err.decode("utf-8").replace(str(folder), "<tmp>")
    return Printed(code, out == b"", tuple(stderr.splitlines()))


def run_in_process(args: list[str], folder: Path) -> tuple[int, bytes, bytes]:
    """(exit code, stdout, stderr) of `mpigen ARGS` run by mpigen.cli.main.main in this process,
    in `folder`, without MPIGEN_DEBUG (which turns internal errors into tracebacks)."""
    from mpigen.cli.main import main

    before = os.getcwd()
    debug = os.environ.pop("MPIGEN_DEBUG", None)
    os.chdir(folder)
    try:
        with captured(printed := {}):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse
                code = exc.code
    finally:
        os.chdir(before)
        if debug is not None:
            os.environ["MPIGEN_DEBUG"] = debug
    return code, printed["out"], printed["err"]


def assert_prints_as_written(case: Case, folder: Path) -> None:
    """The case's run prints exactly its output part (exit code, stdout empty or not, stderr)."""
    assert case.expected is not None, f"{case.path}: no `{OUTPUT}` line (python -m tests.support.cases --update)"
    printed = run_case(case, folder)
    assert printed.text() == case.expected.text(), f"{case.path.relative_to(ROOT)}"


def assert_quiet_twins_differ_in_one_place(cases: list[Case]) -> None:
    """A check's quiet twin (<case>.quiet.yaml beside <case>.yaml) is the same input with the one
    change the message asks for: a single run of changed lines, and it prints no diagnostic."""
    by_name = {case.name: case for case in cases}
    twins = [(by_name[name[:-len(".quiet")]], case) for name, case in by_name.items()
             if name.endswith(".quiet") and name[:-len(".quiet")] in by_name]
    assert twins
    for loud, quiet in twins:
        matcher = difflib.SequenceMatcher(a=loud.source.splitlines(), b=quiet.source.splitlines(), autojunk=False)
        changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
        assert len(changes) == 1, f"{quiet.path.name} differs from {loud.path.name} in {len(changes)} places"
        assert not [line for line in quiet.expected.stderr if ": error: " in line or ": warning: " in line], quiet.path


def update(names: list[str]) -> int:
    """Rewrite the output part of every case file of the tables named (all when none)."""
    os.environ.setdefault("MPIGEN_CACHE_DIR", tempfile.mkdtemp(prefix="mpigen-cases-cache-"))
    folders = [CASES / n for n in names] if names else sorted(p for p in CASES.iterdir() if p.is_dir())
    changed = 0
    for folder in folders:
        for case in table(folder.name):
            with tempfile.TemporaryDirectory() as tmp:
                printed = run_case(case, Path(tmp).resolve())
            if printed != case.expected:
                case.path.write_text(case.source + printed.text(), encoding="utf-8")
                changed += 1
                print(f"updated {case.path.relative_to(ROOT)}")
    print(f"{changed} case file(s) changed")
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if not arguments or arguments[0] != "--update":
        sys.exit("usage: python -m tests.support.cases --update [TABLE...]")
    sys.exit(update(arguments[1:]))
