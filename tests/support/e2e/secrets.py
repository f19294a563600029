"""The Secrets the pretend API server stores, and the ServiceAccount tokens it issues.

create() validates a Secret as the API server does for what the rendered objects send:
metadata.name, base64 data, type kubernetes.io/ssh-auth needing the key ssh-privatekey,
ownerReferences with apiVersion, kind, name and a non-empty uid; an existing name is
AlreadyExists. A Secret whose owner (by kind, name and uid) is not in the cluster is removed
at once, as the garbage collector removes dependents of a missing owner.
A token is an opaque string naming (namespace, ServiceAccount), written into a pod's
projected serviceAccountToken file (volumes.py); it stands for the signed JWT of a cluster.
"""

from __future__ import annotations

import base64
import binascii
import secrets as random
import uuid
from dataclasses import dataclass, field


class ApiError(Exception):
    """An error the API server answers with, as `Error from server (Reason): message`."""

    def __init__(self, reason: str, message: str):
        super().__init__(f"({reason}): {message}")
        self.reason = reason


@dataclass
class SecretStore:
    secrets: dict[tuple[str, str], dict] = field(default_factory=dict)
    tokens: dict[str, tuple[str, str]] = field(default_factory=dict)
    owners: list[dict] = field(default_factory=list)  # objects that can own a Secret (the JobSet, with its uid)
    log: list[tuple[str, str]] = field(default_factory=list)  # (verb, name) of each change, in order

    def get(self, namespace: str, name: str) -> dict | None:
        return self.secrets.get((namespace, name))

    def put(self, secret: dict) -> None:
        """A Secret the platform made (spec.ssh.keySecret, or a test's replacement)."""
        self.secrets[(secret["metadata"].get("namespace", "default"), secret["metadata"]["name"])] = secret

    def issue_token(self, namespace: str, service_account: str) -> str:
        token = f"pretend-token-{random.token_hex(16)}"
        self.tokens[token] = (namespace, service_account)
        return token

    def delete(self, namespace: str, name: str) -> bool:
        self.log.append(("delete", name))
        return self.secrets.pop((namespace, name), None) is not None

    def create(self, namespace: str, secret: dict) -> dict:
        meta = secret.get("metadata", {})
        name = meta.get("name", "")
        if not name:
            raise ApiError("Invalid", "Secret is invalid: metadata.name: Required value: name or generateName is "
                                      "required")
        for key, value in secret.get("data", {}).items():
            try:
                base64.b64decode(value, validate=True)
            except binascii.Error:
                raise ApiError("BadRequest", f"Secret in version \"v1\" cannot be handled as a Secret: illegal "
                                             f"base64 data in data.{key}") from None
        if secret.get("type") == "kubernetes.io/ssh-auth" and "ssh-privatekey" not in secret.get("data", {}):
            raise ApiError("Invalid", f'Secret "{name}" is invalid: data[ssh-privatekey]: Required value')
        for ref in meta.get("ownerReferences", []):
            for key in ("apiVersion", "kind", "name", "uid"):
                if not ref.get(key):
                    raise ApiError("Invalid", f'Secret "{name}" is invalid: metadata.ownerReferences.{key}: '
                                              "Invalid value: \"\": must not be empty")
        if (namespace, name) in self.secrets:
            raise ApiError("AlreadyExists", f'secrets "{name}" already exists')
        stored = {**secret, "metadata": {**meta, "namespace": namespace, "uid": str(uuid.uuid4())}}
        self.log.append(("create", name))
        if all(self._owner_exists(namespace, ref) for ref in meta.get("ownerReferences", [])):
            self.secrets[(namespace, name)] = stored
        else:
            self.log.append(("garbage-collect", name))
        return stored

    def _owner_exists(self, namespace: str, ref: dict) -> bool:
        return any(o["kind"] == ref["kind"] and o["metadata"]["name"] == ref["name"]
                   and o["metadata"].get("uid") == ref["uid"]
                   and o["metadata"].get("namespace", "default") == namespace for o in self.owners)
