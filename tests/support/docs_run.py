"""The documentation as a script (tests/system/test_docs_run.py): the fenced blocks of
README.md and docs/*.md, the shell commands of their ```sh blocks run as a reader types them,
and the output a doc shows for them.

The conventions the docs follow, so that the tests can read them:
- every line of a ```sh block is a command (a trailing `\\` continues it on the next line;
  comments and blank lines are skipped), run by bash in the folder the earlier `cd` lines of
  the doc chose; it must exit 0, unless its comment says `# exits N`;
- a plain ``` block that follows a ```sh block with nothing but blank lines between them is
  the output of that block's commands: each command's standard output, then its standard
  error, exactly (temporary paths and the commit ids `mpigen diff` names aside);
- a ```yaml block whose preceding paragraph ends with a path in backquotes and a colon
  ("Save it as `blueprints/pi.yaml`:") is written to that path before the next command;
- the commands of NOT_RUN are not run, for the reason given there; those of INSTALL only
  where a test installs mpigen for real (tests/system/install/), with the reader's own
  environment, which an `export NAME=VALUE` line changes for the commands after it.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT

BIN = Path(sys.executable).parent
# The shell of a reader whose mpigen is the one under test, with git as a user's machine
# runs it (no global or system configuration) and the identity and dates of its commits fixed,
# so that commit hashes are the same on every run. BASE_REF is the variable of docs/ci.md's
# GitHub Actions workflow.
GIT_DATE = "2026-01-05T09:00:00+00:00"
ENV = {key: value for key, value in os.environ.items() if not key.startswith(("MPIGEN_", "GIT_"))}
ENV.update({"PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0", "BASE_REF": "main",
            "GIT_AUTHOR_NAME": "A. User", "GIT_AUTHOR_EMAIL": "a.user@example.com", "GIT_AUTHOR_DATE": GIT_DATE,
            "GIT_COMMITTER_NAME": "A. User", "GIT_COMMITTER_EMAIL": "a.user@example.com",
            "GIT_COMMITTER_DATE": GIT_DATE})

# Commands the docs show that the tests do not run, by the start of the command, with the reason.
NOT_RUN = {
    "make ": "a clone's set-up (README's Install): the test suite runs in the environment it makes",
    "kubectl ": "needs a cluster (or, for Secrets, the controllers of docs/ssh.md)",
    "ssh-keygen ": "docs/ssh.md's key for a Secret: not mpigen's",
    "sops ": "docs/ssh.md's encryption of a Secret: not mpigen's",
    "mpigen validate --server": "needs a cluster: tests/acceptance/test_live.py runs it against a fake API server",
    "mpigen diff --live": "needs a cluster: tests/acceptance/test_live.py runs it against a fake API server",
    "mpigen status": "needs a cluster: test_status_cli.py and test_operating_doc.py run it against a fake API server",
    # docs/cli.md's completion set-up, a line per shell, into the user's shell start-up files
    # (bash runs them all here): tests/acceptance/test_completion.py runs each shell's script.
    "source <(mpigen completion": "a shell's start-up: test_completion.py loads the script in bash",
    "mpigen completion bash > ~": "writes into the user's home folder",
    'eval "$(mpigen completion zsh)"': "zsh's start-up, not bash's",
    "mpigen completion zsh > ": "zsh's fpath, not bash's",
    "mpigen completion fish > ~": "fish's, into the user's home folder",
}
# The commands that install mpigen (docs/tutorial.md, step 1): tests/system/install/ runs
# them, with the wheel `make dist` builds, in a fresh virtual environment under a home of its own;
# elsewhere the suite's environment is the one mpigen is installed in.
INSTALL = ("python3 -m venv ", "~/.local/mpigen/bin/pip install ", 'export PATH="$HOME/.local/mpigen/bin:$PATH"')
INSTALLS_ELSEWHERE = "installs mpigen: tests/system/install/ runs it with the wheel `make dist` builds"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", re.M | re.S)
WRITE_TO = re.compile(r"`([\w./-]+)`:\s*$")
EXITS = re.compile(r"#.*\bexits (\d+)\b")
# The commit a diff names (`origin/main (1337eda1aa89) -> working tree`, `7c72fd6a7296 -> ...`):
# a copy made at test time has commits of its own, so the only text the comparison leaves out.
COMMIT = re.compile(r"\b[0-9a-f]{12}(?=\)? -> )")


@dataclass
class Block:
    """A shell block of a doc, with what the doc shows around it."""

    doc: str
    line: int             # where the block starts in the doc
    text: str
    output: str | None    # the output the doc shows right after it
    files: dict[str, str]  # files the doc writes before it: path -> text


def shell_blocks(path: Path) -> list[Block]:
    """The ```sh blocks of a doc, in order, each with the files of the ```yaml blocks written
    since the previous one and the output shown right after it."""
    text = path.read_text(encoding="utf-8")
    fences = list(FENCE.finditer(text))
    blocks, files = [], {}
    for i, fence in enumerate(fences):
        lang, body = fence.group(1), fence.group(2)
        before = text[fences[i - 1].end() if i else 0:fence.start()]
        if lang == "yaml" and WRITE_TO.search(before):
            files[WRITE_TO.search(before).group(1)] = body
        if lang != "sh":
            continue
        following = fences[i + 1] if i + 1 < len(fences) else None
        output = None
        if following and following.group(1) == "" and not text[fence.end():following.start()].strip():
            output = following.group(2)
        line = text.count("\n", 0, fence.start()) + 1
        blocks.append(Block(path.relative_to(ROOT).as_posix(), line, body, output, files))
        files = {}
    return blocks


def commands(block: str) -> list[str]:
    """The commands of a shell block: its logical lines, without blank and comment lines."""
    out, pending = [], ""
    for raw in block.splitlines():
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        line = (pending + raw).strip()
        pending = ""
        if line and not line.startswith("#"):
            out.append(line)
    return out


def not_run(command: str, installs: bool = False) -> str | None:
    """Why the tests do not run a command of the docs, or None when they run it (the commands
    that install mpigen only when the test installs it)."""
    if not installs and command.startswith(INSTALL):
        return INSTALLS_ELSEWHERE
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def expected_exit(command: str) -> int:
    found = EXITS.search(command)
    return int(found.group(1)) if found else 0


def run_block(block: Block, cwd: Path, env: dict[str, str] | None = None,
              run_also: tuple[str, ...] = ()) -> tuple[Path, str]:
    """Write the block's files, run its commands in order from cwd as bash would, each
    expected to exit as its comment says; return the folder the last `cd` chose and the
    output (standard output, then standard error, of each command in turn).

    Given env, the reader's own shell: the block's `export` lines change it, and the commands
    that install mpigen run; without it, the suite's shell (ENV), where they do not. The
    commands starting with one of `run_also` run though NOT_RUN names them (docs/operating.md's
    kubectl, run against a fake API server that env's KUBECONFIG names)."""
    for name, text in block.files.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text, encoding="utf-8")
    output = []
    for command in commands(block.text):
        if not_run(command, installs=env is not None) and not command.startswith(run_also):
            continue
        words = shlex.split(command, comments=True)
        if words[0] == "cd" and len(words) == 2:
            cwd = cwd / words[1]
            continue
        if words[0] == "export" and env is not None:
            env.update(exported(command, cwd, env))
            continue
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=ENV if env is None else env,
                              capture_output=True, timeout=120)
        shown = (done.stdout + done.stderr).decode("utf-8")
        assert done.returncode == expected_exit(command), (
            f"{block.doc}:{block.line}: `{command}` exited {done.returncode}:\n{shown}")
        output.append(shown.replace(f"{cwd}/", ""))
    return cwd, "".join(output)


def exported(command: str, cwd: Path, env: dict[str, str]) -> dict[str, str]:
    """The variables an `export NAME=VALUE ...` line sets, with the values bash gives them."""
    names = [word.split("=", 1)[0] for word in shlex.split(command)[1:]]
    script = command + "\nprintf '%s\\0' " + " ".join(f'"${{{name}}}"' for name in names)
    done = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, check=True)
    return dict(zip(names, done.stdout.decode("utf-8").split("\0")))


def assert_shown(where: str, output: str, shown: str) -> None:
    """The output of commands is exactly what a doc shows, but for the commit ids of diffs."""
    printed, documented = COMMIT.sub("<commit>", output), COMMIT.sub("<commit>", shown)
    assert printed == documented, (f"{where}: the output shown is not what the commands print:\n" + "".join(
        difflib.unified_diff(documented.splitlines(True), printed.splitlines(True), "shown", "printed")))


def repository(folder: Path) -> Path:
    """A copy of this repository as its docs assume it: the examples (blueprints/, overlays/,
    mpigen.yaml), the schemas, the MPIJobs of golden/ the import examples read and the one
    docs/migrate.md imports, the output `mpigen render` writes, all committed on main,
    which origin/main also names."""
    for name in ("blueprints", "overlays", "schemas", "golden/mpijob-v2beta1", "docs/migrate"):
        shutil.copytree(ROOT / name, folder / name)
    shutil.copy2(ROOT / "mpigen.yaml", folder / "mpigen.yaml")
    for command in ("mpigen render", "git init --quiet --initial-branch=main", "git add --all",
                    "git commit --quiet --message 'the repository as the docs assume it'",
                    "git update-ref refs/remotes/origin/main HEAD"):
        subprocess.run(["bash", "-c", command], cwd=folder, env=ENV, capture_output=True, check=True)
    return folder
