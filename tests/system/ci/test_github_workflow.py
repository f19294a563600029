"""The example GitHub Actions workflow (docs/ci/github-actions.yml), run step by step with a
fake gh.

Every case works in a small user repository built in a temporary folder from this
repository's blueprints/, overlays/ and mpigen.yaml (output: rendered). Expectations are
taken from what mpigen really renders for these blueprints: the dev overlay sets every
job to 1 worker, prod gives resnet50-imagenet 16 workers x 8 GPUs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.paths import ROOT
from tests.support.ci_repository import (BIN, ENV, IMAGE, INTEL, OUT, POSITIONED, WORKER_CPU, commit_all, edit, git,
                                         make_repo, mpigen)


# --- 5. the example GitHub Actions workflow ------------------------------------------------------

WORKFLOW = ROOT / "docs" / "ci" / "github-actions.yml"
FAKE_GH = """#!{python}
import json, os, sys
args = sys.argv[1:]
body = None
if "--body-file" in args:
    with open(args[args.index("--body-file") + 1], encoding="utf-8") as handle:
        body = handle.read()
with open(os.environ["FAKE_GH_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"args": args, "body": body}}) + "\\n")
if "--edit-last" in args and os.environ.get("FAKE_GH_NO_COMMENT"):
    print("no comments found for current user", file=sys.stderr)
    sys.exit(1)
"""


def workflow_job() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data["jobs"]["mpigen"]


def test_workflow_triggers_on_the_files_mpigen_reads():
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    on = data.get("on", data.get(True))  # PyYAML reads the key `on` as true
    patterns = on["pull_request"]["paths"]
    for path in ("mpigen.yaml", "blueprints/x.yaml", "overlays/dev/overlay.yaml", "rendered/dev/kustomization.yaml"):
        assert any(re.fullmatch(p.replace("**", ".*"), path) for p in patterns), path
    assert data["permissions"]["pull-requests"] == "write"
    checkout = next(s for s in workflow_job()["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0


class Actions:
    """The workflow's run: steps, run as GitHub runs them, in a clone with origin/main."""

    def __init__(self, tmp_path: Path, work: Path):
        self.work = work
        self.summary = tmp_path / "step-summary.md"
        self.summary.write_text("")
        self.log = tmp_path / "gh.log"
        fake = tmp_path / "fakebin"
        fake.mkdir()
        (fake / "gh").write_text(FAKE_GH.format(python=sys.executable))
        (fake / "gh").chmod(0o755)
        values = {"github.base_ref": "main", "github.event.pull_request.number": "7", "github.token": "fake-token",
                  "github.server_url": "https://github.example.com", "github.repository": "ml/training",
                  "github.run_id": "42"}
        job = workflow_job()
        self.env = {**ENV, "PATH": os.pathsep.join([str(fake), str(BIN), ENV.get("PATH", "")]),
                    "GITHUB_STEP_SUMMARY": str(self.summary), "FAKE_GH_LOG": str(self.log), "CI": "true"}
        for key, value in job["env"].items():
            self.env[key] = re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda m: values[m.group(1)], str(value))
        assert self.env["BASE_REF"] == "main" and self.env["PR_NUMBER"] == "7"
        self.steps = [s for s in job["steps"] if "run" in s and s.get("name") != "Install mpigen"]
        assert [s["name"] for s in self.steps] == ["Validate blueprints and overlays", "Rendered output is up to date",
                                                   "What changes on the clusters"]

    def run(self, name: str, **extra_env) -> subprocess.CompletedProcess:
        step = next(s for s in self.steps if s["name"] == name)
        return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=self.work, env={**self.env, **extra_env},
                              capture_output=True, text=True, timeout=60)

    def gh_calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]


def pull_request(tmp_path: Path, *changes, rerender: bool = True) -> Actions:
    """A clone of a repository whose main holds the render, on a branch with the changes,
    committed (re-rendered or not)."""
    origin = make_repo(tmp_path / "origin")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "config", "user.name", "Test User")
    git(work, "config", "user.email", "test@example.com")
    git(work, "checkout", "-q", "-b", "pr-7")
    for change in changes:
        edit(work, change)
    if rerender:
        assert mpigen(work, "render").code == 0
    commit_all(work, "the pull request")
    return Actions(tmp_path, work)


def test_workflow_on_a_change_applied_in_place(tmp_path):
    actions = pull_request(tmp_path, WORKER_CPU)
    validate = actions.run("Validate blueprints and overlays")
    assert validate.returncode == 0, validate.stderr
    check = actions.run("Rendered output is up to date")
    assert check.returncode == 0, check.stdout + check.stderr
    diff = actions.run("What changes on the clusters")
    assert diff.returncode == 0, diff.stderr
    report = (actions.work / "mpigen-diff.md").read_text(encoding="utf-8")
    assert report.startswith("### mpigen diff: `origin/main (")
    assert "| ml-dev/intel-pi | dev |" in report and "| hpc/intel-pi | prod |" in report
    assert "[!WARNING]" not in report
    assert actions.summary.read_text(encoding="utf-8") == report  # nothing left out of either
    assert json.loads((actions.work / "mpigen-diff.json").read_text(encoding="utf-8"))["differs"]
    calls = actions.gh_calls()
    assert calls == [{"args": ["pr", "comment", "7", "--body-file", "mpigen-diff.md", "--edit-last"],
                      "body": report}]


def test_workflow_on_an_immutable_change_fails_after_posting(tmp_path):
    actions = pull_request(tmp_path, IMAGE)
    assert actions.run("Validate blueprints and overlays").returncode == 0
    assert actions.run("Rendered output is up to date").returncode == 0
    diff = actions.run("What changes on the clusters", FAKE_GH_NO_COMMENT="1")  # no earlier comment to edit
    assert diff.returncode == 1, diff.stderr
    report = (actions.work / "mpigen-diff.md").read_text(encoding="utf-8")
    assert "> [!WARNING]" in report and "spec.template" in report
    assert actions.summary.read_text(encoding="utf-8") == report
    assert json.loads((actions.work / "mpigen-diff.json").read_text(encoding="utf-8"))["immutable"]
    calls = actions.gh_calls()
    assert [c["args"] for c in calls] == [["pr", "comment", "7", "--body-file", "mpigen-diff.md", "--edit-last"],
                                          ["pr", "comment", "7", "--body-file", "mpigen-diff.md"]]
    assert all(c["body"] == report for c in calls)


def test_workflow_fails_when_the_branch_forgot_to_render(tmp_path):
    actions = pull_request(tmp_path, WORKER_CPU, rerender=False)
    assert actions.run("Validate blueprints and overlays").returncode == 0
    check = actions.run("Rendered output is up to date")
    assert check.returncode == 1
    assert f"+++ b/{OUT}/dev/ml-dev/statefulset-intel-pi-worker.yaml" in check.stdout
    assert f"mpigen: {OUT} is stale: 3 changed files;" in check.stderr


def test_workflow_diff_step_stops_on_invalid_input_without_posting(tmp_path):
    actions = pull_request(tmp_path, (INTEL, "  workers: 2\n", "  workers: 0\n"), rerender=False)
    assert actions.run("Validate blueprints and overlays").returncode == 2
    diff = actions.run("What changes on the clusters")
    assert diff.returncode == 2
    assert POSITIONED.match(diff.stderr)
    assert actions.gh_calls() == []
    assert actions.summary.read_text(encoding="utf-8") == ""


# --- 6. the workflow on a change to 200 jobs -----------------------------------------------------

def bench_repository(root: Path, jobs: int) -> Path:
    """The benchmark's generated repository (bench/bench.py) of `jobs` blueprints, as a team
    keeps one under Argo CD with alerts: rendered for prod only, committed on main."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    from bench import generate  # bench/bench.py, as test_safety imports it

    root.mkdir(parents=True)
    generate(root, jobs, seed=7)
    config = yaml.safe_load((root / "mpigen.yaml").read_text(encoding="utf-8"))
    config.update(overlays=["prod"], output=OUT, gitops="argocd",
                  monitoring={"prometheusRule": {"labels": {"release": "prometheus"}},
                              "runbookURL": "https://git.example.com/ml/training/-/blob/main/docs/monitoring.md"},
                  argocd={"repoURL": "https://git.example.com/ml/training.git"})
    (root / "mpigen.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test User")
    git(root, "config", "user.email", "test@example.com")
    assert mpigen(root, "render").code == 0
    commit_all(root, "200 jobs and their render")
    return root


def nccl_debug(work: Path) -> list[str]:
    """The one-line change of the issue: NCCL_DEBUG=INFO in every job's env. The jobs, as
    namespace/name."""
    jobs = []
    for path in sorted((work / "blueprints").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        text = (text.replace("  env: {}\n", "  env: {NCCL_DEBUG: INFO}\n") if "  env: {}\n" in text
                else text.replace("  env:\n", "  env:\n    NCCL_DEBUG: INFO\n", 1))
        path.write_text(text, encoding="utf-8")
        metadata = yaml.safe_load(text)["metadata"]
        jobs.append(f"{metadata['namespace']}/{metadata['name']}")
    return jobs


def test_workflow_on_a_one_line_change_to_200_jobs(tmp_path):
    """Every job's run is renamed, and the PrometheusRule's expressions with it (1.7 MB of
    markdown before budgets): the comment stays under GitHub's 65,536 characters, its overview
    names every changed job and the restarts, and says where the rest is; the job summary
    keeps to its 1 MiB; the JSON has every job."""
    origin = bench_repository(tmp_path / "origin", 200)
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "config", "user.name", "Test User")
    git(work, "config", "user.email", "test@example.com")
    jobs = nccl_debug(work)
    assert mpigen(work, "render").code == 0
    commit_all(work, "NCCL_DEBUG=INFO everywhere")
    actions = Actions(tmp_path, work)
    diff = actions.run("What changes on the clusters")
    assert diff.returncode == 0, diff.stderr
    comment = (work / "mpigen-diff.md").read_text(encoding="utf-8")
    assert len(comment) < 65536
    overview = comment.split("\n\n")[1].splitlines()
    assert overview[:2] == ["- **Jobs changed**: 200 (prod: 200)", overview[1]]
    assert overview[3].startswith("- **Restarts**: 200 jobs (their pods start again): team-0/job-00000 (env prod): "
                                  "its blueprint changed; ")
    assert overview[3].count(": its blueprint changed") == 200  # each job with its cause
    changed = overview[4].removeprefix("- **Changed jobs**: prod: ").split(", ")
    assert sorted(changed) == sorted(jobs) and len(jobs) == 200
    more = ("left out to fit: see [the job summary](https://github.example.com/ml/training/actions/runs/42), "
            "and its mpigen-diff artifact (JSON)**")
    assert more in comment
    # What a run rename drags along is one line per job; what the change does is shown.
    assert "run job-00000-" in comment and "env[NCCL_DEBUG]" in comment
    assert "kube_job_failed" not in comment
    summary = actions.summary.read_text(encoding="utf-8")
    assert len(summary.encode("utf-8")) <= 1024 * 1024 and summary.startswith(comment.split("\n\n")[0])
    # Each job's details are there, or counted in the line that says where the rest is.
    shown = [job for job in jobs if f"<details><summary>job {job} (env prod)</summary>" in summary]
    left = re.search(r"\*\*(\d+) more changes? \((\d+) jobs?'s? details[^)]*\) left out to fit: see the mpigen-diff "
                     r"artifact of https://github.example.com/ml/training/actions/runs/42 \(--format json\)\*\*",
                     summary)
    assert len(shown) + (int(left.group(2)) if left else 0) == 200 and len(shown) > 150
    report = json.loads((work / "mpigen-diff.json").read_text(encoding="utf-8"))
    assert {f"{j['namespace']}/{j['job']}" for j in report["jobs"] if j["job"]} == set(jobs)
    assert actions.gh_calls()[0]["body"] == comment
