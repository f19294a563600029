"""An environment of 400 jobs: its PrometheusRule and its dashboard split into shards
(mpigen.monitoring.shards), each under every limit of its kind as mpigen.kube.sizes counts it, and the
fewest shards that are (half as many would not be); every job's rule group and dashboard row in
exactly one shard; the rule shards pass `promtool check rules` (each is a rule file of its own to
prometheus-operator, which also counts its spec as YAML: measured here with libyaml's emitter at
go-yaml v2's width); each dashboard shard is Grafana's model to the SDK. A job added rewrites one
rule shard and one dashboard shard, removed it restores their bytes, and two renders are
byte-identical. Under Flux the shards are in the environment's alerts/ folder, which its
Kustomization applies; under Argo CD each keeps its annotations, and without a GitOps profile a
client-side apply's annotations are counted too. A job too large for any shard stops the
render at its blueprint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard

from mpigen.kube.sizes import (MAX_ANNOTATIONS, MAX_CONFIG_MAP_DATA, MAX_ETCD_REQUEST, MAX_PROMETHEUS_RULE_SPEC,
                               client_side_applied_annotations, config_map_data_size, prometheus_rule_spec_size,
                               stored_size)
from mpigen.monitoring import shards as sharding
from tests.support.promtool import promtool

JOBS = 400
SAFE = 3 / 4  # of each limit: docs/monitoring.md section 8
# (rule shards, dashboard shards) of the 400 jobs in each GitOps profile, as docs/monitoring.md section 8 says
DOCUMENTED = {"flux": (16, 8), "argocd": (32, 8), "none": (32, 64)}
RULE, BOARD = "mpigen-big-bae1f5", "mpigen-big-bae1f5-dashboard"
CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noverlays: [big]\noutput: rendered\n"
OVERLAY = ("apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\ngitops: {gitops}\nmonitoring:\n"
           "  prometheusRule: {{labels: {{release: prometheus}}}}\n"
           "  runbookURL: https://git.example.com/ml/training/-/blob/main/docs/monitoring.md\n"
           "  dashboard: {{enabled: true}}\n")


def blueprint(i: int) -> str:
    return (f"apiVersion: mpigen.dev/v1alpha1\nkind: MPIJobBlueprint\nmetadata:\n  name: train-{i:03d}\n"
            f"  namespace: team-{i % 4}\nspec:\n  image: mpioperator/mpi-pi:openmpi\n  workers: 2\n"
            "  gpusPerWorker: 1\n  command: [/home/mpiuser/pi]\n  runPolicy: {cleanPodPolicy: Running}\n"
            "  resources:\n    launcher: {cpu: 1, memory: 1Gi}\n    worker: {cpu: 1, memory: 1Gi}\n")


def repository(root: Path, gitops: str, jobs: int = JOBS) -> Path:
    (root / "blueprints").mkdir(parents=True)
    (root / "overlays" / "big").mkdir(parents=True)
    (root / "mpigen.yaml").write_text(CONFIG, encoding="utf-8")
    (root / "overlays" / "big" / "overlay.yaml").write_text(OVERLAY.format(gitops=gitops), encoding="utf-8")
    for i in range(jobs):
        (root / "blueprints" / f"train-{i:03d}.yaml").write_text(blueprint(i), encoding="utf-8")
    return root


def monitoring_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.rglob("*.yaml"))
            if p.name.startswith(("prometheusrule-", "configmap-mpigen-"))}


def loaded(text: bytes) -> dict:
    (obj,) = [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d]
    return obj


def shards(objects: list[dict], kind: str) -> list[dict]:
    return [o for o in objects if o["kind"] == kind]


def groups(rule: dict) -> list[str]:
    return [g["name"] for g in rule["spec"]["groups"]]


def rows(config_map: dict) -> list[str]:
    (text,) = config_map["data"].values()
    return [p["title"] for p in json.loads(text).get("panels", []) if p["type"] == "row"]


def jobs(count: int = JOBS) -> list[str]:
    return sorted(f"team-{i % 4}/train-{i:03d}" for i in range(count))


def assert_sharded_under(objects: list[dict], gitops: str) -> tuple[int, int]:
    """Every shard under SAFE of every limit of its kind; the fewest such; each job once. Returns
    how many rule and dashboard shards."""
    rules, boards = shards(objects, "PrometheusRule"), shards(objects, "ConfigMap")
    boards = [b for b in boards if b["metadata"].get("labels", {}).get("grafana_dashboard") == "1"]
    k, b = len(rules), len(boards)
    assert k > 1 and b > 1 and k & (k - 1) == 0 and b & (b - 1) == 0, (k, b)
    assert [r["metadata"]["name"] for r in rules] == [f"{RULE}-{i:0{len(str(k))}d}-of-{k}" for i in range(1, k + 1)]
    assert [c["metadata"]["name"] for c in boards] == [f"{BOARD}-{i:0{len(str(b))}d}-of-{b}" for i in range(1, b + 1)]
    client_side = gitops != "flux"
    for rule in rules:
        assert prometheus_rule_spec_size(rule) <= SAFE * MAX_PROMETHEUS_RULE_SPEC
        assert stored_size(rule, as_json=True) <= SAFE * MAX_ETCD_REQUEST
        if client_side:  # kubectl apply, Argo CD without ServerSideApply
            assert client_side_applied_annotations(rule) <= SAFE * MAX_ANNOTATIONS
        # the operator counts its YAML (go-yaml v2, width 80): libyaml's emitter, which go-yaml ports
        assert len(yaml.dump(rule["spec"], Dumper=yaml.CSafeDumper).encode()) <= MAX_PROMETHEUS_RULE_SPEC
        assert rule["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "mpigen", "release": "prometheus"}
        assert len(set(groups(rule))) == len(groups(rule))
    for board in boards:
        assert config_map_data_size(board) <= SAFE * MAX_CONFIG_MAP_DATA
        assert stored_size(board, as_json=False) <= SAFE * MAX_ETCD_REQUEST
        if gitops == "none":
            assert client_side_applied_annotations(board) <= SAFE * MAX_ANNOTATIONS
    assert sorted(g.removeprefix("mpigen/") for rule in rules for g in groups(rule)) == jobs()
    assert sorted(r for board in boards for r in rows(board)) == jobs()
    # Half as many: shard i with shard i + k/2 (a job's shard modulo k/2). One of those would not fit.
    limit = SAFE * min([MAX_PROMETHEUS_RULE_SPEC] + ([MAX_ANNOTATIONS] if client_side else []))
    assert max(stored_size({"groups": rules[i]["spec"]["groups"] + rules[i + k // 2]["spec"]["groups"]}, True)
               for i in range(k // 2)) > limit
    limit = SAFE * (MAX_ANNOTATIONS if gitops == "none" else MAX_CONFIG_MAP_DATA)
    assert max(config_map_data_size(boards[i]) + config_map_data_size(boards[i + b // 2]) for i in range(b // 2)) > limit
    return k, b


def test_under_flux_each_job_moves_one_shard_and_two_renders_agree(cli, tmp_path):
    repo = repository(tmp_path, "flux")
    done = cli("render", "--no-cache")
    assert done.returncode == 0, done.stderr
    alerts = repo / "rendered" / "big" / "alerts"
    before = monitoring_files(alerts)
    objects = [loaded(text) for text in before.values()]
    k, b = assert_sharded_under(objects, "flux")
    assert (k, b) == DOCUMENTED["flux"]
    kustomization = yaml.safe_load((alerts / "kustomization.yaml").read_text().split("\n", 2)[2])
    assert sorted(kustomization["resources"]) == sorted(f"monitoring/{name}" for name in before)

    rules = [o for o in objects if o["kind"] == "PrometheusRule"]
    files = [f"shard{i}.yaml" for i in range(len(rules))]
    for name, rule in zip(files, rules):
        (tmp_path / name).write_text(yaml.safe_dump(rule["spec"]), encoding="utf-8")
    checked = promtool("check", "rules", *files, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    (repo / "blueprints" / "train-400.yaml").write_text(blueprint(JOBS), encoding="utf-8")
    assert cli("render").returncode == 0
    added = monitoring_files(alerts)
    assert added.keys() == before.keys()  # K holds
    changed = sorted(name for name in before if added[name] != before[name])
    assert len(changed) == 2 and changed[0].startswith("configmap-") and changed[1].startswith("prometheusrule-")
    assert all("train-400" in added[name].decode() for name in changed)

    (repo / "blueprints" / "train-400.yaml").unlink()
    assert cli("render").returncode == 0
    assert monitoring_files(alerts) == before

    assert cli("render", "--no-cache", "-o", "again").returncode == 0
    assert monitoring_files(repo / "again" / "big" / "alerts") == before
    assert (k, b) == (len([n for n in before if n.startswith("prometheusrule-")]),
                      len([n for n in before if n.startswith("configmap-")]))


@pytest.mark.parametrize("gitops", ["argocd", "none"])
def test_applied_client_side_the_rule_shards_count_the_last_applied_annotation(cli, tmp_path, gitops):
    repository(tmp_path, gitops)
    done = cli("render", "--stdout", "--no-cache")
    assert done.returncode == 0, done.stderr
    objects = [d for d in yaml.load_all(done.stdout, Loader=yaml.CSafeLoader) if d]
    assert assert_sharded_under(objects, gitops) == DOCUMENTED[gitops]
    mine = [o for o in objects if o["metadata"]["name"].startswith(RULE)]
    wave = {"argocd.argoproj.io/sync-wave": "-1"}
    for obj in mine:
        expected = {} if gitops == "none" else wave if obj["kind"] == "PrometheusRule" else {
            **wave, "argocd.argoproj.io/sync-options": "ServerSideApply=true"}
        assert {k: v for k, v in obj["metadata"].get("annotations", {}).items()
                if k.startswith("argocd")} == expected
    for board in shards(objects, "ConfigMap"):
        if board["metadata"]["name"].startswith(BOARD):
            (text,) = board["data"].values()
            dashboard = json.loads(text)
            model = Dashboard.from_json(dashboard)
            assert json.loads(json.dumps(model, cls=JSONEncoder)) == dashboard
            i, _, k = board["metadata"]["name"].rsplit("-", 3)[1:]
            assert model.title == f"mpigen: big ({int(i)}/{k})"
    uids = [json.loads(next(iter(o["data"].values())))["uid"] for o in shards(objects, "ConfigMap")
            if o["metadata"]["name"].startswith(BOARD)]
    assert len(set(uids)) == len(uids)


def test_a_render_whose_job_fits_no_shard_stops_at_its_blueprint(cli, tmp_path, monkeypatch):
    """Every job too large for a shard (a limit made a thousandth of itself): exit 2, each job's
    blueprint named, nothing written."""
    monkeypatch.setattr(sharding, "SAFE_FRACTION", 0.001)
    repository(tmp_path, "flux", jobs=2)
    done = cli("render")
    assert done.returncode == 2
    assert sorted(line.split(": ")[1] for line in done.lines("error")) == [
        "blueprints/train-000.yaml", "blueprints/train-001.yaml"]
    assert "no shard of the environment's can hold it" in done.stderr
    assert not (tmp_path / "rendered").exists()
