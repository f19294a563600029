"""What the API server counts of a ConfigMap against core.MaxSecretSize (1 MiB): the bytes of
its data's values (Go's len of a string: UTF-8 bytes) and its binaryData's decoded bytes
(k8s.io/kubernetes pkg/apis/core/validation/validation.go ValidateConfigMap), never its keys
or the rest of the object."""

from __future__ import annotations

import base64

import pytest

from mpigen.kube.sizes import MAX_CONFIG_MAP_DATA, base64_decoded_length, config_map_data_size


def test_the_limit_is_one_mebibyte():
    assert MAX_CONFIG_MAP_DATA == 1_048_576


@pytest.mark.parametrize("raw", [b"", b"a", b"ab", b"abc", b"abcd", bytes(range(256)) * 3])
def test_binary_data_counts_its_decoded_bytes(raw):
    assert base64_decoded_length(base64.b64encode(raw).decode()) == len(raw)


def test_data_counts_the_utf8_bytes_of_its_values_only():
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x" * 200},
           "data": {"k" * 200: "é" * 10, "b": "abc"}, "binaryData": {"c": base64.b64encode(b"12345").decode()}}
    assert config_map_data_size(obj) == 20 + 3 + 5

