"""Live-cluster commands (`validate --server`, `diff --live`), a thin layer over the
kubernetes client, which only these commands import.

mpigen emits a fixed set of kinds, so each object's REST path comes from the table of kinds
(mpigen.render.targets.kind_facts) instead of API discovery; requests go through the client's
ApiClient, which brings kubeconfig, contexts, TLS and every authentication method kubectl has.

- validate --server: each object as a server-side apply with dryRun=All and
  fieldValidation=Strict (what `kubectl apply --server-side --dry-run=server` sends): the
  API server runs its admission and validation, and nothing is changed.
- diff --live: each object as the cluster has it, reduced to the fields mpigen writes (the
  server's defaults and bookkeeping are not differences), then the same resource-aware
  report as `mpigen diff`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mpigen.emit.yaml import dump_object
from mpigen.errors import NOWHERE, InputError, Mark, error
from mpigen.load.parser import parse
from mpigen.render.targets import kind_facts
from mpigen.review.object_reports import check_rendered

FIELD_MANAGER = "mpigen"


def resource_path(obj: dict) -> str:
    """The REST path of a rendered object (of a kind the table has)."""
    api, meta = obj["apiVersion"], obj["metadata"]
    facts = kind_facts(api, obj["kind"])
    if facts is None:
        raise KeyError(obj["kind"])
    base = f"/api/{api}" if "/" not in api else f"/apis/{api}"
    namespace = "" if facts.cluster_scoped else f"/namespaces/{meta.get('namespace', 'default')}"
    return f"{base}{namespace}/{facts.plural}/{meta['name']}"


@dataclass
class Answer:
    status: int  # the HTTP status
    body: dict


class Cluster:
    """One API server, as a kubeconfig file and context say."""

    def __init__(self, kubeconfig: str | None, context: str | None):
        from kubernetes import config
        from kubernetes.config.config_exception import ConfigException

        # A kubeconfig named with --kubeconfig is a file; the default one is wherever KUBECONFIG
        # or ~/.kube/config says: no file to put before the message.
        where = Mark(kubeconfig) if kubeconfig else NOWHERE
        try:
            self.client = config.new_client_from_config(config_file=kubeconfig, context=context)
        except (ConfigException, OSError, TypeError, ValueError) as exc:
            raise InputError([error(where, f"cannot use the kubeconfig: {_one_line(exc)}; give one with --kubeconfig "
                                           "or KUBECONFIG, and a context with --context")]) from None
        self.server = self.client.configuration.host

    def request(self, method: str, path: str, query: list | None = None, body: str | None = None,
                content_type: str = "application/json") -> Answer:
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        headers = {"Accept": "application/json", "Content-Type": content_type}
        try:
            if hasattr(self.client, "param_serialize"):  # the client's generator since v32
                request = self.client.param_serialize(method, path, query_params=query or [], header_params=headers,
                                                      body=body, auth_settings=["BearerToken"])
                response = self.client.call_api(*request, _request_timeout=30)
                response.read()
                return Answer(response.status, _json(response.data))
            response = self.client.call_api(path, method, query_params=query or [], header_params=headers,
                                            body=body, auth_settings=["BearerToken"], _preload_content=False,
                                            _return_http_data_only=True, _request_timeout=30)
            return Answer(response.status, _json(response.data))
        except ApiException as exc:
            return Answer(exc.status, _json(exc.body))
        except (HTTPError, OSError) as exc:
            raise InputError([error(NOWHERE, f"cannot reach the API server {self.server}: {_reason(exc)}; check the "
                                              "kubeconfig's server and your network")]) from None

    def dry_run_apply(self, obj: dict) -> Answer:
        query = [("dryRun", "All"), ("fieldManager", FIELD_MANAGER), ("fieldValidation", "Strict"), ("force", "true")]
        return self.request("PATCH", resource_path(obj), query, json.dumps(obj), "application/apply-patch+yaml")

    def get(self, obj: dict) -> Answer:
        return self.request("GET", resource_path(obj))


def _json(data) -> dict:
    try:
        value = json.loads(data) if data else {}
    except (TypeError, ValueError):
        return {"message": str(data)[:500]}
    return value if isinstance(value, dict) else {}


def _one_line(exc: Exception) -> str:
    """The client's message on one line, without the full stop it may end with."""
    return " ".join(str(exc).split()).rstrip(".")


def _reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None)
    return str(reason or exc)


def explain(obj: dict, answer: Answer) -> str:
    """The API server's refusal, in words that say what to do."""
    message = answer.body.get("message") or f"HTTP {answer.status}"
    if answer.status == 401:
        return f"not authenticated ({message}): log in again or check the kubeconfig's credentials"
    if answer.status == 403:
        return f"forbidden ({message}): your account may not apply {obj['kind']} objects here"
    if answer.status == 404 and answer.body.get("details", {}).get("kind") == "namespaces":
        return f"{message}: create the namespace first"
    if answer.status == 404:
        return (f"the cluster has no {obj['apiVersion']} {obj['kind']} ({message}): install its "
                "CustomResourceDefinition (the MPI Operator's, or the gang scheduler's)")
    return message


def validate_on_server(cluster: Cluster, rendered) -> list:
    """Reports (mpigen.review.object_reports.ObjectReport) of a server-side dry-run apply of each object."""
    def check(obj: dict) -> tuple[str, list[str]]:
        answer = cluster.dry_run_apply(obj)
        return ("valid", []) if 200 <= answer.status < 300 else ("invalid", [explain(obj, answer)])

    return check_rendered(rendered, check)


def live_texts(cluster: Cluster, new_texts: dict[str, str], suspended: dict[str, bool] | None = None) -> dict[str, str]:
    """The cluster's copy of every rendered object that exists there, reduced to the fields
    the rendered object has, laid out at the same paths (for mpigen.review.diff.compare).
    `suspended` gets, by path, the live spec.suspend of each object that has one: a job Kueue
    holds suspended (queued, or preempted) shows it there, where Git leaves it to Kueue."""
    out = {}
    for path, text in new_texts.items():
        if path.rsplit("/", 1)[-1] in ("kustomization.yaml", ".mpigen-index"):
            continue
        rendered = parse(text, path)[0].data
        answer = cluster.get(rendered)
        if answer.status == 404:
            continue
        if not 200 <= answer.status < 300:
            raise InputError([error(Mark(path), f"cannot read {rendered['kind']} {rendered['metadata']['name']} "
                                                f"from the cluster: {explain(rendered, answer)}")])
        out[path] = dump_object(project(answer.body, rendered), "")
        spec = answer.body.get("spec")
        suspend = spec.get("suspend") if isinstance(spec, dict) else None
        if suspended is not None and isinstance(suspend, bool):
            suspended[path] = suspend
    return out


def project(live, rendered):
    """The live value with only the keys the rendered value has: what the server adds
    (defaults, status, uid, managedFields, ...) is not a difference mpigen could make."""
    if isinstance(live, dict) and isinstance(rendered, dict):
        return {key: project(live[key], value) for key, value in rendered.items() if key in live}
    if isinstance(live, list) and isinstance(rendered, list) and len(live) == len(rendered):
        return [project(a, b) for a, b in zip(live, rendered)]
    return live
