"""Run renames in a diff (mpigen.review.diff.renames) and the report cut to a budget
(mpigen.review.diff.budget), on the golden render of the monitored environment (argocd
profile: every object of a run named after it; the PrometheusRule selects each run's pods, the
dashboard's queries name them).
A change to a job's spec renames its run, as the render does: the run's objects and every
string naming the run carry the new run's name, and its run label the new hash."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mpigen.review.diff.budget import Budget
from mpigen.review.diff.compare import compare
from mpigen.review.diff.renames import renames

GOLDEN = Path(__file__).resolve().parents[3] / "golden" / "monitored"
OLD_RUN, NEW_RUN = "resnet50-imagenet-7294f3", "resnet50-imagenet-0a1b2c"
RULE = "PrometheusRule monitoring/mpigen-monitored-bae1f5"
DASHBOARD = "ConfigMap monitoring/mpigen-monitored-bae1f5-dashboard"


def golden() -> dict[str, str]:
    return {p.relative_to(GOLDEN).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(GOLDEN.rglob("*.yaml")) if p.is_file()}


def renamed(files: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The render after a change that renames run `old` to `new` (its files and every text
    naming it), and gives its launcher one more environment variable."""
    out = {}
    old_hash, new_hash = old.rsplit("-", 1)[1], new.rsplit("-", 1)[1]
    for path, text in files.items():
        text = text.replace(old, new).replace(f"mpigen.dev/run: {old_hash}", f"mpigen.dev/run: {new_hash}")
        if path.endswith(f"job-{old}-launcher.yaml"):
            text = re.sub(r"(?m)^(\s+)env:\n", lambda m: f"{m[0]}{m[1]}- name: TORCH_SHOW_CPP_STACKTRACES\n{m[1]}  value: '1'\n",
                          text, count=1)
        out[path.replace(old, new)] = text
    return out


def test_a_renamed_run_is_one_line_and_the_change_beyond_it():
    old = golden()
    new = renamed(old, OLD_RUN, NEW_RUN)
    report = compare(old, new)
    job = next(j for j in report.jobs if j.job == "resnet50-imagenet")
    assert len(job.added) == len(job.removed) >= 4 and job.new_run and job.ends_run
    found = renames(report.jobs)
    (run,) = found.runs.values()
    assert (run.rename.old, run.rename.new) == (OLD_RUN, NEW_RUN) and len(run.pairs) == len(job.added)
    changed = [(str(c.key), [f.path for f in c.fields]) for c in run.changed]
    assert changed == [(f"Job ml-team/{NEW_RUN}-launcher", ["spec.template.spec.containers[mpi-launcher].env"
                                                            "[TORCH_SHOW_CPP_STACKTRACES]"])]
    # The environment's objects that name the run: its dashboard's ConfigMap (a row per job, whose
    # queries name the run's launcher) and its PrometheusRule; every field of them that changes
    # only follows the rename.
    environment = next(j for j in report.jobs if not j.job)
    assert [str(c.key) for c in environment.changed] == [DASHBOARD, RULE]
    assert all(found.following[(report.jobs.index(environment), k)] == set(range(len(change.fields)))
               for k, change in enumerate(environment.changed))
    assert run.followers == {str(c.key): len(c.fields) for c in environment.changed}
    assert run.followers[DASHBOARD] == 1  # its one data key, the dashboard's JSON
    text = report.format("text")
    assert (f"  run {OLD_RUN} -> {NEW_RUN}: {len(job.added)} objects renamed; 1 field of {DASHBOARD} follows it; "
            f"{run.followers[RULE]} fields of {RULE} follow it\n") in text
    assert "kube_" not in text and "+ added" not in text and "- removed" not in text
    assert "Restarts: 1 job (their pods start again): ml-team/resnet50-imagenet (env monitored): a new run replaces its run\n" in text
    markdown = report.format("markdown")
    assert f"- run {OLD_RUN} → {NEW_RUN}:" in markdown and "kube\\_" not in markdown and "kube_" not in markdown
    # JSON keeps every object and field.
    data = json.loads(report.format("json"))
    assert any("kube_" in json.dumps(j["changed"]) for j in data["jobs"] if not j["job"])


def test_one_object_renamed_alone_is_shown_as_it_is():
    old = golden()
    path = next(p for p in old if p.endswith(f"serviceaccount-{OLD_RUN}-launcher.yaml"))
    new = {**{p: t for p, t in old.items() if p != path},
           path.replace(OLD_RUN, "resnet50-imagenet-ffffff"): old[path].replace(OLD_RUN, "resnet50-imagenet-ffffff")}
    report = compare(old, new)
    assert renames(report.jobs).runs == {}
    assert "+ added ServiceAccount" in report.format("text")


def test_a_report_over_its_budget_keeps_the_overview_and_says_what_it_left_out():
    old = golden()
    new = old
    runs = sorted({m[0] for text in old.values() for m in re.findall(r"name: (([a-z0-9-]+)-[0-9a-f]{6})-launcher\n",
                                                                       text)})
    assert len(runs) >= 5
    for i, run in enumerate(runs):
        new = renamed(new, run, f"{run.rsplit('-', 1)[0]}-{i:06x}")
    report = compare(old, new)
    whole = report.format("markdown", budget=Budget(0))
    cut = report.format("markdown", budget=Budget(4000, "the job summary"))
    assert len(cut) <= 4000 < len(whole)
    overview = whole.split("\n\n")[1]
    assert cut.split("\n\n")[1] == overview and f"**Restarts**: {len(runs)} jobs" in overview
    left = re.search(r"\*\*(\d+) more changes \(([^)]*)\) left out to fit: see the job summary\*\*", cut)

    def rows(markdown: str) -> int:
        return sum(line.startswith("| ") and not line.startswith("| Job |") for line in markdown.splitlines())

    left_out = whole.count("<details>") - cut.count("<details>") + rows(whole) - rows(cut)
    assert left and int(left[1]) == left_out > 0
    text = report.format("text", budget=Budget(3000))
    assert len(text) <= 3000 and text.rstrip("\n").endswith("immutable changes")


def test_the_changed_jobs_line_is_cut_to_half_the_budget():
    old = golden()
    new = old
    for i, run in enumerate(sorted({m[0] for text in old.values()
                                    for m in re.findall(r"name: (([a-z0-9-]+)-[0-9a-f]{6})-launcher\n", text)})):
        new = renamed(new, run, f"{run.rsplit('-', 1)[0]}-{i:06x}")
    report = compare(old, new)

    def changed_jobs(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("Changed jobs: ")).removeprefix(
            "Changed jobs: ")

    whole = changed_jobs(report.format("text"))
    cut = changed_jobs(report.format("text", budget=Budget(300)))
    assert len(whole) > 150 >= len(cut)
    shown, more = cut.rsplit(" and ", 1)
    assert more.endswith(" more") and whole.startswith(shown)
    assert int(more.split()[0]) + shown.count("/") == whole.count("/")
