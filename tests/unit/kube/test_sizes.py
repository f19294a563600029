"""What the API server counts of a ConfigMap against core.MaxSecretSize (1 MiB): the bytes of
its data's values (Go's len of a string: UTF-8 bytes) and its binaryData's decoded bytes
(k8s.io/kubernetes pkg/apis/core/validation/validation.go ValidateConfigMap), never its keys
or the rest of the object."""

from __future__ import annotations

import base64
import json

import pytest

from mpigen.kube.sizes import (MAX_ANNOTATIONS, MAX_CONFIG_MAP_DATA, MAX_ETCD_REQUEST, base64_decoded_length,
                               config_map_data_size, largest_annotations, stored_size)


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
