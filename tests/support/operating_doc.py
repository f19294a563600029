"""docs/operating.md's cluster and how its commands are run: a copy of this repository rendered
by `mpigen render`, a local API server (tests.support.fake_api_server) holding the prod
environment's jobs as their controllers write them (tests.support.operating_cluster) and one
job of each other target in namespace `research`, and the doc's commands (kubectl and
`mpigen status` too, which the generic docs test does not run) run against it.

`python -m tests.support.operating_doc --update` writes what the commands print into the doc's
output blocks (after a change of the judging's words, say); read the diff before committing."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import yaml

from mpigen.compile.mpijob import V1
from mpigen.render.mpijob.options import MpiJobOptions
from tests.support.blueprints import blueprint_yaml
from tests.support.docs_run import ENV, repository, run_block, shell_blocks
from tests.support.fake_api_server import FakeAPIServer, kubeconfig
from tests.support.operating_cluster import other_target_job, pending_items, rendered_job, serve, static_job
from tests.support.paths import ROOT
from tests.support.rendering import render_text

OPERATING = ROOT / "docs" / "operating.md"
RUN_ALSO = ("kubectl ", "mpigen status")
# The prod environment's jobs the cluster has at a moment other than running
# (tests.support.status_moments); cfd-motorbike has none of its objects (not synced yet);
# mpich-pi was just run again (a new spec.run): its new run starts, its older run still runs;
# mnist-mig's workers were scaled to 0 by hand (`kubectl scale`), which Git does not say.
LIVES = {"tensorflow-mnist": "succeeded", "intel-pi": "failed", "vit-sweep-7": "queued", "cfd-motorbike": None,
         "mpich-pi": "workers", "mnist-mig": "stopped"}
RUN_AGAIN = "mpich-pi"
RESEARCH = {"pretrain": "jobset", "finetune": "trainjob", "evaluate": "mpijob", "benchmark": "mpijob"}
# The research jobs rendered with other options than their target's defaults: benchmark's MPIJob
# is the training-operator's (--mpijob-api kubeflow.org/v1).
RESEARCH_OPTIONS = {"benchmark": {"own": MpiJobOptions(api=V1)}}


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
                               target=target, **RESEARCH_OPTIONS.get(name, {}))
        out += other_target_job(target, rendered)
    return out


def older_run(blueprint: Path) -> list[dict]:
    """The objects of the job's run before the last one: its blueprint as it was, another
    spec.run (its names another run's, under the prod environment's argocd profile)."""
    text = blueprint.read_text(encoding="utf-8").replace("\nspec:\n", "\nspec:\n  run: before\n", 1)
    return render_text(text, blueprint.as_posix(), target="static", gitops="argocd")


def cluster(repo: Path) -> FakeAPIServer:
    """The API server of the doc (not started): the prod environment's jobs at their LIVES, the
    older run of RUN_AGAIN, the research jobs, a log for every launcher pod."""
    objects = []
    for job, rendered in prod_jobs(repo).items():
        life = LIVES.get(job, "running")
        if life is not None:
            objects += rendered_job(rendered, life)
    objects += static_job(older_run(repo / "blueprints" / f"{RUN_AGAIN}.yaml"), "running")
    queued = [o for o in objects if o["kind"] == "Workload" and o["metadata"]["namespace"] == "team-a"]
    server = serve(objects + research_objects(), {("team-a", "team-a-gpus"): pending_items(queued)})
    for obj in server.objects:
        if obj["kind"] == "Pod" and is_launcher(obj):
            server.logs[(obj["metadata"]["namespace"], obj["metadata"]["name"])] = "mpirun: all ranks started\n"
    return server


def is_launcher(pod: dict) -> bool:
    """A launcher's pod, by the label its target's controller puts there (docs/operating.md's table)."""
    labels = pod["metadata"]["labels"]
    return "launcher" in (labels.get("mpi_role_type"), labels.get("jobset.sigs.k8s.io/replicatedjob-name"),
                          labels.get("training.kubeflow.org/job-role"), labels.get("training.kubeflow.org/replica-type"))


def job_of(pod: dict) -> str | None:
    """The job of a pod: mpigen's label, or the MPI Operator's."""
    labels = pod["metadata"]["labels"]
    return labels.get("mpigen.dev/job") or labels.get("training.kubeflow.org/job-name")


def reader_env(folder: Path, server: FakeAPIServer) -> dict[str, str]:
    """The reader's shell, its kubeconfig the server's (kubectl's cache in `folder`)."""
    return {**ENV, "KUBECONFIG": str(kubeconfig(folder / "kubeconfig", server.url)),
            "KUBECACHEDIR": str(folder / "kube-cache")}


def update() -> None:
    """Write what each block's commands print into the output block the doc shows after it."""
    text = OPERATING.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        repo = repository(Path(folder) / "repository")
        with cluster(repo) as server:
            env = reader_env(Path(folder), server)
            for block in shell_blocks(OPERATING):
                _, output = run_block(block, repo, env, RUN_ALSO)
                if block.output is not None:
                    shown = f"```sh\n{block.text}```\n\n```\n"
                    text = text.replace(shown + block.output + "```", shown + output + "```", 1)
    OPERATING.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.support.operating_doc --update")
    update()
