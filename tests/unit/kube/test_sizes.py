"""What the API server counts of a ConfigMap against core.MaxSecretSize (1 MiB): the bytes of
its data's values (Go's len of a string: UTF-8 bytes) and its binaryData's decoded bytes
(k8s.io/kubernetes pkg/apis/core/validation/validation.go ValidateConfigMap), never its keys
or the rest of the object."""

from __future__ import annotations

import base64
import json

import pytest

from mpigen.kube.sizes import (MAX_ANNOTATIONS, MAX_CONFIG_MAP_DATA, MAX_ETCD_REQUEST, MAX_PROMETHEUS_RULE_SPEC,
                               base64_decoded_length, client_side_applied_annotations, config_map_data_size,
                               largest_annotations, prometheus_rule_spec_size, stored_size)


def test_the_limit_is_one_mebibyte():
    assert MAX_CONFIG_MAP_DATA == 1_048_576


@pytest.mark.parametrize("raw", [b"", b"a", b"ab", b"abc", b"abcd", bytes(range(256)) * 3])
def test_binary_data_counts_its_decoded_bytes(raw):
    assert base64_decoded_length(base64.b64encode(raw).decode()) == len(raw)


def test_data_counts_the_utf8_bytes_of_its_values_only():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x" * 200},
           "data": {"k" * 200: "é" * 10, "b": "abc"}, "binaryData": {"c": base64.b64encode(b"12345").decode()}}
    assert config_map_data_size(obj) == 20 + 3 + 5



def test_etcds_default_request_limit_is_one_and_a_half_mebibytes():
    """etcd server/embed/config.go DefaultMaxRequestBytes = 1.5 * 1024 * 1024."""
    assert MAX_ETCD_REQUEST == 1_572_864


def test_a_custom_resource_is_stored_as_at_least_its_compact_json():
    obj = {"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "é"}, "spec": {"a": [1, True, None]}}
    assert stored_size(obj, as_json=True) == len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


def test_kubernetes_own_kinds_count_only_their_string_values():
    """Protobuf names a field by its number; each string value is written whole."""
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"key": "vé"}}, "spec": {"n": 5, "l": ["ab"]}}
    assert stored_size(obj, as_json=False) == len("v1") + len("Pod") + len("vé".encode()) + len("ab")


def test_annotations_count_their_keys_and_values_on_the_object_and_its_pod_templates():
    """k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateAnnotationsSize: len(k) + len(v),
    at most TotalAnnotationSizeLimitB = 256 KiB, for the object's metadata and a pod template's."""
    assert MAX_ANNOTATIONS == 262_144
    template = {"metadata": {"annotations": {"ab": "é" * 10}}, "spec": {}}
    obj = {"metadata": {"annotations": {"k": "v"}}, "spec": {"replicatedJobs": [{"template": {"spec": {
        "template": template}}}]}}
    assert largest_annotations(obj) == 2 + 20
    assert largest_annotations({"metadata": {"name": "x"}}) == 0


def test_a_client_side_apply_adds_the_objects_json_to_its_annotations():
    """kubectl pkg/util/apply.go GetModifiedConfiguration: the object, its other annotations kept,
    json.Marshal'ed into kubectl.kubernetes.io/last-applied-configuration, which
    ValidateAnnotationsSize then counts with the others."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "annotations": {"k": "vé"}},
           "data": {"x": "é" * 5}}
    compact = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()
    assert client_side_applied_annotations(obj) == len("k") + len("vé".encode()) + len(
        "kubectl.kubernetes.io/last-applied-configuration") + len(compact)
    applied = {**obj, "metadata": {**obj["metadata"], "annotations": {
        **obj["metadata"]["annotations"], "kubectl.kubernetes.io/last-applied-configuration": compact.decode()}}}
    assert client_side_applied_annotations(obj) == largest_annotations(applied)


def test_prometheus_operator_takes_half_a_config_map_of_rule_spec():
    """prometheus-operator v0.93.0 pkg/operator/rules.go: MaxConfigMapDataSize =
    int(float64(corev1.MaxSecretSize) * 0.5), ValidateRule's limit of the spec it marshals."""
    assert MAX_PROMETHEUS_RULE_SPEC == 524_288
    rule = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", "metadata": {"name": "x" * 300},
            "spec": {"groups": [{"name": "g", "rules": [{"alert": "A", "expr": "up > 0"}]}]}}
    assert prometheus_rule_spec_size(rule) == len(b'{"groups":[{"name":"g","rules":[{"alert":"A","expr":"up > 0"}]}]}')
