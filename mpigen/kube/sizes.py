"""The sizes the API server counts of an object against a limit of its own kind.

A ConfigMap's data: k8s.io/kubernetes pkg/apis/core/validation/validation.go
ValidateConfigMap sums len(value) (bytes: Go's len of a string is its UTF-8 length) over
`data` and `binaryData` and refuses the object when the total is over core.MaxSecretSize,
`MaxSecretSize = 1 * 1024 * 1024` in pkg/apis/core/types.go (the message: "may not exceed
1048576 bytes")."""

from __future__ import annotations

# k8s.io/kubernetes pkg/apis/core/types.go: MaxSecretSize, which ValidateConfigMap also applies.
MAX_CONFIG_MAP_DATA = 1024 * 1024


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
