"""`mpigen schema` documents every production field, with an example or a default.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import json

import pytest

from tests.support.command_line import run_mpigen


# --- 6. `mpigen schema` documents every new field -------------------------------------------------

NEW_FIELDS = {
    "CSI": ("driver", "volumeAttributes", "nodePublishSecret"),
    "Download": ("image", "command", "env"),
    "Dataset": ("accessMode", "csi", "configMap", "secret", "download"),
    "RolePlacement": ("affinity", "priorityClassName"),
    "WorkerPlacement": ("affinity", "priorityClassName", "onePodPerNode"),
    "Gang": ("scheduler", "schedulerName", "minAvailable", "queue", "scheduleTimeoutSeconds"),
    "Scheduling": ("gang", "queue"),
    "Launcher": ("runAsWorker", "waitForWorkers"),
    "RDMA": ("resource", "count", "ipcLock"),
    "Network": ("hostNetwork", "rdma", "secondaryNetworks"),
    "Security": ("runAsUser", "runAsGroup", "fsGroup", "runAsNonRoot", "privileged", "capabilities",
                 "sshAuthMountPath"),
    "ServiceAccount": ("name", "annotations"),
    "Spec": ("sharedMemory", "launcher", "network", "scheduling", "security", "imagePullSecrets", "serviceAccount"),
}
FIELDS = [(model, field) for model, fields in NEW_FIELDS.items() for field in fields]


@pytest.fixture(scope="module")
def schema_defs() -> dict:
    done = run_mpigen("schema")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["$defs"]


def is_model(prop: dict) -> bool:
    """A field whose value is another model (an object with fields of its own)."""
    return "$ref" in json.dumps(prop)


@pytest.mark.parametrize("model, field", FIELDS, ids=[f"{m}.{f}" for m, f in FIELDS])
def test_schema_describes_every_new_field(schema_defs, model, field):
    assert schema_defs[model]["properties"][field].get("description", "").strip()


LEAVES = [(model, field) for model, field in FIELDS if field not in
          ("csi", "download", "gang", "rdma", "launcher", "network", "scheduling", "security", "serviceAccount")]


@pytest.mark.parametrize("model, field", LEAVES, ids=[f"{m}.{f}" for m, f in LEAVES])
def test_schema_gives_every_new_leaf_field_an_example_or_default(schema_defs, model, field):
    """A leaf field (not a model) has `examples`, or a default that is not null."""
    prop = schema_defs[model]["properties"][field]
    assert not is_model(prop)
    assert prop.get("examples") or prop.get("default") is not None, prop


def test_the_model_fields_left_out_of_the_leaves_are_models(schema_defs):
    assert all(is_model(schema_defs[m]["properties"][f]) for m, f in FIELDS if (m, f) not in LEAVES)


def test_schema_names_the_service_account_mpigen_creates(schema_defs):
    assert "<name>-identity" in schema_defs["ServiceAccount"]["properties"]["annotations"]["description"]
