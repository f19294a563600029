"""The pretend Trainer's SSH key (tests/support/e2e/trainer), read by the real OpenSSH: ssh-keygen
derives from the private key the public half the Secret holds. The key's format is unit-tested
in tests/unit/e2e/test_trainer_port.py."""

from __future__ import annotations

import base64
import subprocess

from tests.support.e2e.trainer.expand import expand

NODE = {"name": "node", "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                                     "spec": {"template": {"spec": {"containers": [{"name": "node",
                                                                                    "image": "test:runtime"}]}}}}}
RUNTIME = {"spec": {"template": {"spec": {"replicatedJobs": [NODE]}}, "mlPolicy": {"mpi": {}}}}
TRAINJOB = {"metadata": {"name": "t", "namespace": "default", "uid": "u"}, "spec": {"trainer": {"numNodes": 1}}}


def test_ssh_keygen_derives_the_public_key_from_the_private_one(tmp_path):
    """buildSSHAuthSecret's private key, read by ssh-keygen -y, gives the public half the Secret holds."""
    secret = next(o for o in expand(TRAINJOB, RUNTIME) if o["kind"] == "Secret")
    (tmp_path / "key").write_bytes(base64.b64decode(secret["data"]["ssh-privatekey"]))
    (tmp_path / "key").chmod(0o600)
    derived = subprocess.run(["ssh-keygen", "-y", "-f", str(tmp_path / "key")], capture_output=True, text=True,
                             check=True).stdout
    assert derived.split()[:2] == base64.b64decode(secret["data"]["ssh-publickey"]).decode().split()
