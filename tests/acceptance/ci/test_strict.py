"""--strict on validate, render and check: the input's warnings are errors (exit 2, each at
its line, nothing written), as CI and the pre-commit hooks run them. The warning is the
issue's: a prod patch whose target.name is not the job's, which silently does not apply."""

from __future__ import annotations

import yaml

from tests.support.ci_repository import OUT, POSITIONED, make_repo, mpigen, snapshot
from tests.support.paths import ROOT

# The prod overlay's patch of resnet50-imagenet, written with the name of another file.
TYPO = ("      name: resnet50-imagenet\n", "      name: resnet50-imagenet-prod\n")
SAID = ("patches[1] selects no blueprint; no job is named 'resnet50-imagenet-prod'; did you mean "
        "'resnet50-imagenet' or 'resnet-ddp'? (target.name matches metadata.name, a shell-style glob)")


def test_strict_makes_a_patch_that_selects_nothing_fail_and_writes_nothing(tmp_path):
    root = make_repo(tmp_path / "repo")
    overlay = root / "overlays/prod/overlay.yaml"
    text = overlay.read_text(encoding="utf-8")
    assert text.count(TYPO[0]) == 1
    overlay.write_text(text.replace(*TYPO), encoding="utf-8")
    line = text[:text.index(TYPO[0])].count("\n")  # the `- target:` line above the name
    where = f"overlays/prod/overlay.yaml:{line}:5"
    plain = mpigen(root, "validate")
    assert plain.code == 0 and f"{where}: warning: {SAID}" in plain.err.splitlines()
    before = snapshot(root)
    for command in (["validate"], ["render"], ["check"], ["render", "--stdout"]):
        run = mpigen(root, *command, "--strict")
        assert run.code == 2, (command, run.err)
        assert run.err.splitlines() == [f"{where}: error: {SAID} (a warning; --strict makes it an error)"], command
        assert POSITIONED.match(run.err) and run.out == ""
        assert "Traceback" not in run.err
    assert snapshot(root) == before  # OUT untouched: nothing written
    overlay.write_text(text, encoding="utf-8")
    assert mpigen(root, "check", "--strict").code == 0
    assert (root / OUT).is_dir()


def test_the_pre_commit_hooks_run_strict():
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    entries = {hook["id"]: hook["entry"] for hook in hooks}
    assert entries == {"mpigen-validate": "mpigen validate --strict", "mpigen-render": "mpigen render --strict",
                       "mpigen-check": "mpigen check --strict"}
