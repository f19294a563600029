"""`mpigen completion bash|zsh|fish`: each shell's script completes mpigen's commands, options,
their choices and paths, as the shell itself runs it (zsh and fish where they are installed)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mpigen.cli.main import COMMANDS, full_parser
from tests.support.command_line import run_mpigen


def script(shell: str, folder: Path) -> Path:
    done = run_mpigen("completion", shell)
    assert done.returncode == 0 and done.stderr == b""
    path = folder / f"mpigen.{shell}"
    path.write_bytes(done.stdout)
    return path


def bash_completes(script_path: Path, line: str, cwd: Path) -> list[str]:
    """What bash offers for `line` (the word under the cursor last), with the script loaded."""
    code = ('source "$1"; read -ra COMP_WORDS <<< "$2"; [[ "$2" == *" " ]] && COMP_WORDS+=(""); '
            'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}; '
            '_shtab_mpigen; printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "-c", code, "bash", str(script_path), line], cwd=cwd, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return [word for word in done.stdout.splitlines() if word]


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "blueprints").mkdir()
    (tmp_path / "blueprints" / "a.yaml").write_text("")
    (tmp_path / "bin.txt").write_text("")
    return tmp_path


def test_bash_completes_commands_options_choices_and_paths(project):
    path = script("bash", project)
    assert sorted(bash_completes(path, "mpigen ", project)) == sorted(COMMANDS)
    assert bash_completes(path, "mpigen re", project) == ["render"]
    assert bash_completes(path, "mpigen render --ta", project) == ["--target"]
    assert sorted(bash_completes(path, "mpigen render --target ", project)) == ["jobset", "mpijob", "static", "trainjob"]
    assert bash_completes(path, "mpigen diff --format ", project) == ["text", "markdown", "json"]
    assert bash_completes(path, "mpigen completion ", project) == ["bash", "zsh", "fish"]
    assert bash_completes(path, "mpigen render bl", project) == ["blueprints"]
    assert bash_completes(path, "mpigen render -o b", project) == ["blueprints"]  # a folder, never bin.txt
    assert bash_completes(path, "mpigen render --disc", project) == ["--discard-edits"]
    assert bash_completes(path, "mpigen check --disc", project) == []  # check never writes


def test_bash_completes_overlay_names_from_the_repository_s_overlays(tmp_path):
    """The overlays of the repository (the nearest folder up with mpigen.yaml), by name:
    a folder of overlays/ without overlay.yaml is none; a word with a '/' is a path."""
    (tmp_path / "mpigen.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Config\n")
    for name in ("dev", "prod", "gpu-pool"):
        (tmp_path / "overlays" / name).mkdir(parents=True)
        (tmp_path / "overlays" / name / "overlay.yaml").write_text("apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n")
    (tmp_path / "overlays" / "notes").mkdir()
    (tmp_path / "blueprints" / "team").mkdir(parents=True)
    path = script("bash", tmp_path)
    for where in (tmp_path, tmp_path / "blueprints" / "team"):
        assert sorted(bash_completes(path, "mpigen render --overlay ", where)) == ["dev", "gpu-pool", "prod"]
        assert bash_completes(path, "mpigen diff --overlay p", where) == ["prod"]
    assert bash_completes(path, "mpigen render --overlay overlays/d", tmp_path) == ["overlays/dev"]


def test_every_option_of_every_command_is_in_the_script(tmp_path):
    text = script("bash", tmp_path).read_text()
    parser = full_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, command in commands.items():
        options = [o for action in command._actions for o in action.option_strings]
        line = next(line for line in text.splitlines() if line.startswith(f"_shtab_mpigen_{name}_option_strings="))
        assert all(f" {option}" in line or f"({option}" in line for option in options), (name, line)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_loads_the_script_after_compinit(tmp_path):
    path = script("zsh", tmp_path)
    assert subprocess.run(["zsh", "-n", str(path)], timeout=30).returncode == 0
    code = f'autoload -U compinit; compinit -u -d {tmp_path}/zcompdump; eval "$(<{path})"; print -r -- $_comps[mpigen]'
    done = subprocess.run(["zsh", "-f", "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout == "_shtab_mpigen\n", done.stderr
    assert "render:'render blueprints to Kubernetes manifests'" in path.read_text()


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_commands_choices_and_paths(project):
    path = script("fish", project)

    def completes(line: str) -> list[str]:
        done = subprocess.run(["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"], cwd=project,
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return [entry.split("\t")[0] for entry in done.stdout.splitlines()]

    assert sorted(completes("mpigen ")) == sorted(COMMANDS)
    assert completes("mpigen re") == ["render"]
    assert sorted(completes("mpigen render --target ")) == ["jobset", "mpijob", "static", "trainjob"]
    assert completes("mpigen completion ") == ["bash", "zsh", "fish"]
    assert completes("mpigen render bl") == ["blueprints/"]


def test_the_script_is_the_same_bytes_every_time_and_an_unknown_shell_is_a_usage_error(tmp_path):
    assert run_mpigen("completion", "bash").stdout == run_mpigen("completion", "bash").stdout
    done = run_mpigen("completion", "tcsh")
    assert done.returncode == 2 and done.stdout == b"" and b"invalid choice" in done.stderr
