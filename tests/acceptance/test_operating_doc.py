"""docs/operating.md runs (issue 52): every command of it, `mpigen status` and kubectl alike,
in a copy of this repository rendered by `mpigen render`, against a local API server
(tests/support/fake_api_server.py) holding the prod environment's jobs as their controllers
write them (tests/support/operating_cluster.py) and one job of each other target in namespace
`research`; the output it shows is what they print, and each `kubectl logs` reads the log of
the launcher pod its selector is meant to find."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.support.blueprints import blueprint_yaml
from tests.support.docs_run import ENV, assert_shown, commands, not_run, repository, run_block, shell_blocks
from tests.support.fake_api_server import FakeAPIServer, kubeconfig
from tests.support.operating_cluster import other_target_job, pending_items, serve, static_job
from tests.support.paths import ROOT
from tests.support.rendering import render_text

pytest.importorskip("kubernetes")
KUBECTL, JQ = shutil.which("kubectl"), shutil.which("jq")
OPERATING = ROOT / "docs" / "operating.md"
RUN_ALSO = ("kubectl ", "mpigen status")
# The prod environment's jobs the cluster has at a moment other than running
# (tests.support.status_moments); cfd-motorbike has none of its objects (not synced yet);
# mpich-pi was just run again (a new spec.run): its new run starts, its older run still runs.
LIVES = {"tensorflow-mnist": "succeeded", "intel-pi": "failed", "vit-sweep-7": "queued", "cfd-motorbike": None,
         "mpich-pi": "workers"}
RUN_AGAIN = "mpich-pi"
RESEARCH = {"pretrain": "jobset", "finetune": "trainjob", "evaluate": "mpijob"}


def prod_jobs(repo: Path) -> dict[str, list[dict]]:
    """The prod environment's rendered objects, by job (the mpigen.dev/job label)."""
    out: dict[str, list[dict]] = {}
    for path in sorted((repo / "golden" / "overlays" / "prod").rglob("*.yaml")):
        obj = yaml.safe_load(path.read_text(encoding="utf-8"))
        job = (obj or {}).get("metadata", {}).get("labels", {}).get("mpigen.dev/job")
        if job is not None:
            out.setdefault(job, []).append(obj)
    return out


def research_objects() -> list[dict]:
    """A running job of each other target in namespace research, as its controllers write it."""
    out = []
    for name, target in RESEARCH.items():
        rendered = render_text(blueprint_yaml(name, metadata="namespace: research\n"), f"blueprints/{name}.yaml",
                               target=target)
        out += other_target_job(target, rendered)
    return out


def older_run(blueprint: Path) -> list[dict]:
    """The objects of the job's run before the last one: its blueprint as it was, another
    spec.run (its names another run's, under the prod environment's argocd profile)."""
    text = blueprint.read_text(encoding="utf-8").replace("\nspec:\n", "\nspec:\n  run: before\n", 1)
    return render_text(text, blueprint.as_posix(), target="static", gitops="argocd")


def cluster(repo: Path) -> FakeAPIServer:
    objects = []
    for job, rendered in prod_jobs(repo).items():
        life = LIVES.get(job, "running")
        if life is not None:
            objects += static_job(rendered, life)
    objects += static_job(older_run(repo / "blueprints" / f"{RUN_AGAIN}.yaml"), "running")
    queued = [o for o in objects if o["kind"] == "Workload" and o["metadata"]["namespace"] == "team-a"]
    server = serve(objects + research_objects(), {("team-a", "team-a-gpus"): pending_items(queued)})
    for obj in server.objects:
        if obj["kind"] == "Pod" and _is_launcher(obj):
            server.logs[(obj["metadata"]["namespace"], obj["metadata"]["name"])] = "mpirun: all ranks started\n"
    return server


def _is_launcher(pod: dict) -> bool:
    labels = pod["metadata"]["labels"]
    return "launcher" in (labels.get("mpi_role_type"), labels.get("jobset.sigs.k8s.io/replicatedjob-name"),
                          labels.get("training.kubeflow.org/job-role"))


@pytest.mark.skipif(KUBECTL is None or JQ is None, reason="kubectl or jq is not installed")
def test_every_command_of_operating_md_runs_as_shown(tmp_path):
    blocks = shell_blocks(OPERATING)
    every = [command for block in blocks for command in commands(block.text)]
    assert [c for c in every if not_run(c) and not c.startswith(RUN_ALSO)] == []
    assert sum(c.startswith("kubectl logs") for c in every) == 4
    repo = repository(tmp_path / "repository")
    with cluster(repo) as server:
        env = {**ENV, "KUBECONFIG": str(kubeconfig(tmp_path / "kubeconfig", server.url)),
               "KUBECACHEDIR": str(tmp_path / "kube-cache")}
        for block in blocks:
            _, output = run_block(block, repo, env, RUN_ALSO)
            if block.output is not None:
                assert_shown(f"{block.doc}:{block.line}", output, block.output)
        logs = sorted(path for method, path, _ in server.requests if path.endswith("/log"))
        launchers = sorted(f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}/log"
                           for pod in server.objects if pod["kind"] == "Pod" and _is_launcher(pod)
                           and _job(pod) in ("tensorflow-mnist", *RESEARCH))
    assert len(launchers) == 4 and logs == launchers


def _job(pod: dict) -> str | None:
    """The job of a pod: mpigen's label, or the MPI Operator's."""
    labels = pod["metadata"]["labels"]
    return labels.get("mpigen.dev/job") or labels.get("training.kubeflow.org/job-name")
