"""The examples follow their own advice: every example blueprint (blueprints/*.yaml, and the
blueprints shown in README.md and docs/) renders without a single warning under every target
and GitOps profile it is meant for. An example meant for only some targets says so in a
`# Targets: ...` line of its header (the other targets' warnings are what keeps it off them;
in docs/, only an example whose subject is what some targets cannot do); one without that
line is meant for every target."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.support.paths import BLUEPRINTS, ROOT

TARGETS = ("static", "mpijob", "jobset", "trainjob")
PROFILES = ("none", "argocd", "flux")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The advice no example can follow in its own text: cleanPodPolicy Running (what every GitOps
# profile asks for) takes a profile on the static target (render/static/checks.py), so without
# one each example that sets it (or All) is warned at that line, and only there.
NEEDS_A_PROFILE = "needs a GitOps profile with --target static"


def meant_for(text: str) -> tuple[str, ...]:
    declared = re.search(r"^# Targets: ([a-z, ]+)", text, re.M)
    if declared is None:
        return TARGETS
    targets = tuple(t.strip() for t in declared.group(1).split(","))
    assert set(targets) <= set(TARGETS), targets
    return targets


def examples() -> dict[str, str]:
    """Each example's text by the name it is written under in the test's folder."""
    out = {f"blueprints/{p.name}": p.read_text(encoding="utf-8") for p in sorted(BLUEPRINTS.glob("*.yaml"))}
    for doc in DOCS:
        blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
        for i, block in enumerate(blocks):
            if "kind: MPIJobBlueprint" in block:
                out[f"docs/{doc.name}-{i}.yaml"] = block
    return out


EXAMPLES = examples()


def test_the_examples_are_found_and_only_a_few_leave_a_target_out():
    assert len([n for n in EXAMPLES if n.startswith("blueprints/")]) == len(list(BLUEPRINTS.glob("*.yaml"))) >= 10
    assert "docs/README.md-0.yaml" in EXAMPLES and "docs/tutorial.md-0.yaml" in EXAMPLES
    # a doc shows a job for every target, but where it shows what only some targets do (and says so)
    assert [name for name, text in EXAMPLES.items() if name.startswith("docs/") and meant_for(text) != TARGETS] \
        == ["docs/blueprints.md-8.yaml"]  # the failure policy's worked example: jobset and trainjob
    # the default target, always, for the examples a repository starts from, but the Kueue
    # example's: Kueue admits the static target's job as two workloads (render/static/checks.py),
    # and the failure policy example's: the static target applies its rules to the launcher alone
    # (render/static/checks.py warns); this repository renders both with jobset (mpigen.yaml's
    # targets rules)
    assert [name for name, text in EXAMPLES.items()
            if name.startswith("blueprints/") and "static" not in meant_for(text)] == \
        ["blueprints/failure-policy.yaml", "blueprints/kueue-queued.yaml"]


def test_an_example_left_off_a_target_gets_that_targets_warning_or_refusal(cli, tmp_path):
    """What keeps the failure policy example off the static and mpijob targets, as its header says."""
    (tmp_path / "job.yaml").write_bytes((BLUEPRINTS / "failure-policy.yaml").read_bytes())
    static = cli("render", "job.yaml", "--stdout", "--target", "static")
    warned = [w for w in static.lines("warning") if NEEDS_A_PROFILE not in w]  # it sets Running
    assert static.returncode == 0 and len(warned) == 1
    assert "the rules act on the launcher's Job" in warned[0]
    mpijob = cli("render", "job.yaml", "--stdout", "--target", "mpijob")
    assert mpijob.returncode == 2 and len(mpijob.lines("error")) == 1
    assert "an MPIJob (kubeflow.org/v2beta1 and v1) has no failure policy" in mpijob.lines("error")[0]


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("target", TARGETS)
def test_every_example_renders_without_a_warning(cli, tmp_path, target, profile):
    names = sorted(name for name, text in EXAMPLES.items() if target in meant_for(text))
    for name in names:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(EXAMPLES[name], encoding="utf-8")
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")  # as the examples' first line names it
    warnings, objects = [], 0
    for folder in ("blueprints", "docs"):  # apart: a doc may show a job that blueprints/ holds too
        done = cli("render", folder, "--stdout", "--target", target, "--gitops", profile)
        assert done.returncode == 0, done.stderr
        warnings += done.lines("warning")
        objects += len(done.objects())
    if (target, profile) == ("static", "none"):
        asking = sorted(name for name in names if re.search(r"cleanPodPolicy: (Running|All)\b", EXAMPLES[name]))
        assert len(asking) >= 10
        assert sorted(w.split(":")[0] for w in warnings if NEEDS_A_PROFILE in w) == asking
        warnings = [w for w in warnings if NEEDS_A_PROFILE not in w]
    assert not warnings, (f"{len(warnings)} warning(s) from the examples meant for --target {target} "
                          f"--gitops {profile}; make the example follow the advice, or (only if that "
                          "breaks another target) leave this target out of its '# Targets:' line:\n"
                          + "\n".join(warnings))
    assert objects >= len(names)
