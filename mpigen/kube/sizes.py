"""The sizes the API server counts of an object against a limit of its own kind, and the
size etcd is asked to store.

A ConfigMap's data: k8s.io/kubernetes pkg/apis/core/validation/validation.go
ValidateConfigMap sums len(value) (bytes: Go's len of a string is its UTF-8 length) over
`data` and `binaryData` and refuses the object when the total is over core.MaxSecretSize,
`MaxSecretSize = 1 * 1024 * 1024` in pkg/apis/core/types.go (the message: "may not exceed
1048576 bytes").

An object's annotations: k8s.io/apimachinery pkg/api/validation/objectmeta.go
ValidateAnnotationsSize sums len(key) + len(value) over them (every object's metadata, and a
pod template's, which ValidatePodTemplateSpec checks the same way) and refuses more than
TotalAnnotationSizeLimitB, `256 * (1 << 10)` ("metadata.annotations: Too long: may not be
more than 262144 bytes").

Any object: the API server stores it in etcd with one request, which etcd refuses over its
--max-request-bytes, by default `DefaultMaxRequestBytes = 1.5 * 1024 * 1024` (etcd v3.5.11
server/embed/config.go; etcd.io/docs "System limits": "By default, the maximum size of any
request is 1.5 MiB"); the API server then answers the create with an error, "etcdserver:
request is too large" (kubernetes/kubernetes issues #74600, #112152). A custom resource is
stored as JSON; Kubernetes' own kinds as protobuf, in which every string is written whole.
What mpigen counts is a lower bound of the request: the object as it sends it, without the
metadata the API server adds (uid, managedFields, ...).

A client-side apply (`kubectl apply`, and Argo CD's sync without `ServerSideApply=true`:
argoproj/gitops-engine 5baed56 pkg/sync/sync_context.go shouldUseServerSideApply) records the
object it applies in the annotation kubectl.kubernetes.io/last-applied-configuration, as JSON
(k8s.io/kubectl pkg/util/apply.go GetModifiedConfiguration: the object, its annotations but
that one, json.Marshal'ed), which counts against the annotations' limit above.

A PrometheusRule: prometheus-operator v0.93.0 (f8fafd4) pkg/operator/rules.go ValidateRule
marshals the rule's spec to YAML and refuses it above MaxConfigMapDataSize,
`int(float64(corev1.MaxSecretSize) * 0.5)` ("the length of rendered Prometheus Rule is %d bytes
which is above the maximum limit of %d bytes"): the operator skips the rule (Select, with an
InvalidConfiguration event), and its admission webhook, which calls ValidateRule too, refuses
it. mpigen counts the spec's compact JSON; the operator's YAML (go-yaml v2, width 80) of mpigen's
rules is a few per cent more (tests/acceptance/monitoring/test_shards.py measures it with
libyaml's emitter, which go-yaml ports), which is why no caller fills the limit."""

from __future__ import annotations

import json

from mpigen.kube.labels import LAST_APPLIED

# k8s.io/kubernetes pkg/apis/core/types.go: MaxSecretSize, which ValidateConfigMap also applies.
MAX_CONFIG_MAP_DATA = 1024 * 1024
# k8s.io/apimachinery pkg/api/validation/objectmeta.go: TotalAnnotationSizeLimitB.
MAX_ANNOTATIONS = 256 * 1024
# etcd server/embed/config.go (v3.5.11): DefaultMaxRequestBytes, etcd's --max-request-bytes default.
MAX_ETCD_REQUEST = 1536 * 1024
# prometheus-operator v0.93.0 pkg/operator/rules.go: MaxConfigMapDataSize, ValidateRule's limit.
MAX_PROMETHEUS_RULE_SPEC = MAX_CONFIG_MAP_DATA // 2


def base64_decoded_length(text: str) -> int:
    """The bytes a base64 text (a binaryData value, as an object carries it) decodes to."""
    return len(text) // 4 * 3 - text[-2:].count("=")


def config_map_data_size(obj: dict) -> int:
    """The bytes ValidateConfigMap counts: its data values' UTF-8 lengths and its binaryData's
    decoded lengths. O(size) over the values, which are what makes a ConfigMap large."""
    data = obj.get("data") or {}
    binary = obj.get("binaryData") or {}
    return (sum(len(v.encode("utf-8")) for v in data.values() if isinstance(v, str))
            + sum(base64_decoded_length(v) for v in binary.values() if isinstance(v, str)))


def compact_json(obj: dict) -> str:
    """The object's compact JSON, as a custom resource is stored (Go's encoder writes no less)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def stored_size(obj: dict, as_json: bool) -> int:
    """At least the bytes of the request that stores the object in etcd: its compact JSON (a
    custom resource: Go's encoder writes no less), or the UTF-8 bytes of its string values
    (protobuf, which writes each whole; a field's name is a number there, and the keys of a
    map, which it writes too, are left out of this bound)."""
    if as_json:
        return len(compact_json(obj).encode("utf-8"))
    return _string_bytes(obj)


def client_side_applied_annotations(obj: dict) -> int:
    """The bytes ValidateAnnotationsSize counts of the object's annotations once a client-side
    apply has added its last-applied-configuration (the object's JSON: at least stored_size's)."""
    own = obj.get("metadata", {}).get("annotations") or {}
    return (sum(len(str(k).encode("utf-8")) + len(str(v).encode("utf-8")) for k, v in own.items())
            + len(LAST_APPLIED) + stored_size(obj, as_json=True))


def prometheus_rule_spec_size(obj: dict) -> int:
    """At least the bytes prometheus-operator's ValidateRule counts of a PrometheusRule: its
    spec's compact JSON (the operator counts its YAML; see above)."""
    return stored_size(obj.get("spec") or {}, as_json=True)


def _string_bytes(value: object) -> int:
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, dict):
        return sum(_string_bytes(v) for v in value.values())
    if isinstance(value, list):
        return sum(_string_bytes(v) for v in value)
    return 0


def largest_annotations(obj: object) -> int:
    """The bytes ValidateAnnotationsSize counts of the largest annotations of the object: its
    metadata's, or a pod template's (any `metadata` mapping within it)."""
    if isinstance(obj, list):
        return max((largest_annotations(v) for v in obj), default=0)
    if not isinstance(obj, dict):
        return 0
    largest = max((largest_annotations(v) for v in obj.values()), default=0)
    annotations = obj.get("metadata", {}).get("annotations") if isinstance(obj.get("metadata"), dict) else None
    if isinstance(annotations, dict):
        own = sum(len(str(k).encode("utf-8")) + len(str(v).encode("utf-8")) for k, v in annotations.items())
        largest = max(largest, own)
    return largest
