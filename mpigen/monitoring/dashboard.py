"""An environment's Grafana dashboard: a row per job (its panels: mpigen.monitoring.dashboard_queries),
built with Grafana's typed builders (grafana-foundation-sdk, imported only here and only when an
environment asks for a dashboard: `pip install 'mpigen[dashboard]'`), and written as the
ConfigMap Grafana's dashboard sidecar loads: labelled `grafana_dashboard: "1"`, the label and
value kube-prometheus-stack's values give its Grafana's sidecar (charts/kube-prometheus-stack
values.yaml, `grafana.sidecar.dashboards.label` / `labelValue`, chart 88.5.3, which also searches
every namespace: `searchNamespace: ALL`).

The dashboard is the environment's, like its PrometheusRule (mpigen.monitoring.prometheus_rule): named
after the rule, its uid a digest of that name (at most 40 characters, as Grafana takes), its
JSON written with sorted keys so that the bytes depend on the jobs alone. Its panels read a
Prometheus data source chosen by the variable `datasource`.

The JSON takes about 9 KB a job: past some 25 jobs it outgrows the 256 KiB of annotations that
client-side apply's last-applied-configuration needs, so under Argo CD the ConfigMap is applied
server-side (argoproj/gitops-engine 5baed56 pkg/sync/sync_context.go reads the resource's
`argocd.argoproj.io/sync-options: ServerSideApply=true`); Flux's kustomize-controller always
applies server-side.

Past what one ConfigMap holds (its data's 1 MiB; without a GitOps profile, applied client-side,
the 256 KiB of annotations: dashboard_limits), the dashboard is split into shards of the jobs
(mpigen.monitoring.shards), ConfigMaps `<name>-<i>-of-<K>` holding the dashboards "mpigen: <env>
(i/K)", each with a uid of its own."""

from __future__ import annotations

import hashlib
import json

from mpigen.kube.labels import ARGOCD_SYNC_OPTIONS, ARGOCD_SYNC_WAVE, MANAGED_BY
from mpigen.kube.sizes import (MAX_ANNOTATIONS, MAX_CONFIG_MAP_DATA, MAX_ETCD_REQUEST, client_side_applied_annotations,
                               config_map_data_size, stored_size)
from mpigen.monitoring.dashboard_queries import STATES, Panel, panels
from mpigen.formats.monitoring import Monitoring
from mpigen.monitoring.prometheus_rule import rule_name
from mpigen.monitoring.shards import Limit, shard_name, sharded
from mpigen.render.watched import Watched

# The Grafana sidecar's label of dashboard ConfigMaps, as kube-prometheus-stack sets it.
SIDECAR_LABEL, SIDECAR_VALUE = "grafana_dashboard", "1"
DATASOURCE = "${datasource}"  # the dashboard's variable of its Prometheus data source
ROW_HEIGHT, SPAN = 7, 6  # a panel's height and width (of Grafana's 24 columns)


def dashboard_config_maps(env: str, watched: list[Watched], monitoring: Monitoring,
                          gitops: str) -> list[tuple[dict, str]]:
    """The environment's dashboard ConfigMap, or its shards where one would not fit
    (mpigen.monitoring.shards: dashboard_limits), each with its `# Source:` comment."""
    def build(jobs: list[Watched], i: int, k: int) -> dict:
        return dashboard_config_map(env, jobs, monitoring, gitops, (i, k))[0]

    maps = sharded(watched, build, dashboard_limits(gitops))
    return [(config_map, _source(env, i + 1, len(maps))) for i, config_map in enumerate(maps)]


def dashboard_limits(gitops: str) -> tuple[Limit, ...]:
    """What the dashboard's ConfigMap must stay under (mpigen.kube.sizes): a ConfigMap's data,
    etcd's request (its strings), and, applied client-side (kubectl apply: without a GitOps
    profile; Argo CD applies it server-side, Flux always), the annotations' limit."""
    limits = (Limit("the API server's ConfigMap validation", config_map_data_size, MAX_CONFIG_MAP_DATA),
              Limit("etcd's request limit", lambda obj: stored_size(obj, as_json=False), MAX_ETCD_REQUEST))
    if gitops != "none":
        return limits
    return *limits, Limit("a client-side apply's annotations", client_side_applied_annotations, MAX_ANNOTATIONS)


def dashboard_config_map(env: str, watched: list[Watched], monitoring: Monitoring, gitops: str,
                         shard: tuple[int, int] = (1, 1)) -> tuple[dict, str]:
    """The environment's dashboard ConfigMap (or its shard i of k) and its `# Source:` comment
    (monitoring.dashboard set)."""
    place = monitoring.dashboard
    name = shard_name(f"{rule_name(env, monitoring)}-dashboard", *shard)
    labels = {MANAGED_BY: "mpigen", **dict(place.labels), SIDECAR_LABEL: SIDECAR_VALUE}
    meta = {"name": name, "namespace": place.namespace, "labels": labels}
    if gitops == "argocd":  # applied server-side: its JSON outgrows client-side apply's last-applied annotation
        meta["annotations"] = {ARGOCD_SYNC_WAVE: "-1", ARGOCD_SYNC_OPTIONS: "ServerSideApply=true"}
    text = json.dumps(dashboard_json(env, watched, monitoring, shard), sort_keys=True, indent=2) + "\n"
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {f"{name}.json": text}}
    return config_map, _source(env, *shard)


def _source(env: str, i: int, k: int) -> str:
    where = f"environment {env}" if env else "the blueprints"
    part = f", shard {i} of {k}" if k > 1 else ""
    return f"Source: mpigen monitoring, the Grafana dashboard of {where}{part} (docs/monitoring.md)"


def dashboard_json(env: str, watched: list[Watched], monitoring: Monitoring, shard: tuple[int, int] = (1, 1)) -> dict:
    """The dashboard (or its shard i of k) as Grafana's JSON model, a collapsed row per job (by
    namespace and name)."""
    from grafana_foundation_sdk.builders import dashboard as boards  # the dashboard extra (mpigen.project.options
    from grafana_foundation_sdk.cog.encoder import JSONEncoder        # refuses a dashboard without it)
    name = shard_name(rule_name(env, monitoring), *shard)
    title = f"mpigen: {env}" if env else "mpigen"
    board = (boards.Dashboard(title if shard[1] == 1 else f"{title} ({shard[0]}/{shard[1]})")
             .uid("mpigen-" + hashlib.sha256(name.encode()).hexdigest()[:20])
             .tags(["mpigen"]).time("now-24h", "now").refresh("1m").readonly()
             .description(f"The jobs of {'environment ' + env if env else 'the blueprints'}, one row each "
                          "(docs/monitoring.md, Dashboard)")
             .with_variable(boards.DatasourceVariable("datasource").label("Prometheus").type("prometheus")))
    ids = iter(range(1, 10_000))
    for one in sorted(watched, key=lambda w: (w.namespace, w.job)):
        row = boards.Row(f"{one.namespace}/{one.job}").id(next(ids))
        for panel in panels(one):
            row = row.with_panel(_panel(panel, next(ids)))
        board = board.with_row(row)
    return json.loads(json.dumps(board.build(), cls=JSONEncoder))


def _panel(panel: Panel, panel_id: int):
    from grafana_foundation_sdk.builders import common as options, dashboard as boards, prometheus, statetimeline, \
        timeseries
    from grafana_foundation_sdk.models import common, dashboard as model

    if panel.kind == "state":
        mapped = {str(value): model.ValueMappingResult(text=text, color=colour, index=i)
                  for i, (value, text, colour) in enumerate(STATES)}
        built = statetimeline.Panel().mappings([model.ValueMap(options=mapped)]).show_value(common.VisibilityMode.AUTO)
    else:
        built = timeseries.Panel().min(0)
        if panel.line is not None:
            steps = [model.Threshold(value=None, color="green"), model.Threshold(value=panel.line, color="red")]
            built = (built.thresholds(boards.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps(steps))
                     .thresholds_style(options.GraphThresholdsStyleConfig()
                                       .mode(common.GraphThresholdsStyleMode.DASHED)))
    built = (built.id(panel_id).title(panel.title).description(panel.description).unit(panel.unit)
             .height(ROW_HEIGHT).span(SPAN).datasource(model.DataSourceRef(type_val="prometheus", uid=DATASOURCE)))
    for ref, query in zip("ABCDEFGH", panel.queries):
        built = built.with_target(prometheus.Dataquery().expr(query.expr).legend_format(query.legend).ref_id(ref)
                                  .range())
    return built
