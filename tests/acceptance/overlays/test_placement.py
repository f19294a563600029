"""Placement (node selectors, tolerations, affinity) rendered into the pod specs, replaced
and merged by an overlay, checked with positions and valid for Kubernetes.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

import textwrap

import pytest
import yaml

from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_yaml
from tests.support.overlays import add_blueprint, at, objects_of, overlay, pod_spec, rendered
from tests.support.text import write


# --- 11. placement ------------------------------------------------------------------------------

PLACEMENT = {
    "worker": {"nodeSelector": {"node.kubernetes.io/instance-type": "p4d.24xlarge", "pool": "a100"},
               "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                               {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoExecute",
                                "tolerationSeconds": 60},
                               {"operator": "Exists"}]},
    "launcher": {"nodeSelector": {"pool": "cpu"}},
}


def test_placement_is_rendered_into_the_pod_specs():
    add_blueprint("job", placement=PLACEMENT, gpusPerWorker=8)
    objects = objects_of(rendered(paths=("blueprints",)))
    workers = pod_spec(objects[("StatefulSet", "job-worker")])
    launcher = pod_spec(objects[("Job", "job-launcher")])
    assert workers["nodeSelector"] == PLACEMENT["worker"]["nodeSelector"]
    assert workers["tolerations"] == PLACEMENT["worker"]["tolerations"]
    assert launcher["nodeSelector"] == {"pool": "cpu"}
    assert "tolerations" not in launcher


def test_placement_from_an_overlay_replaces_lists_and_merges_node_selectors():
    add_blueprint("job", placement=PLACEMENT)
    overlay("x", """\
        patches:
          - patch:
              spec:
                placement:
                  worker:
                    nodeSelector: {pool: h100, node.kubernetes.io/instance-type: null}
                    tolerations: [{key: pool, operator: Equal, value: h100}]
                  launcher:
                    tolerations: [{operator: Exists, effect: NoSchedule}]
        """)
    objects = objects_of(rendered("x"))
    workers = pod_spec(objects[("StatefulSet", "job-worker")])
    launcher = pod_spec(objects[("Job", "job-launcher")])
    assert workers["nodeSelector"] == {"pool": "h100"}
    assert workers["tolerations"] == [{"key": "pool", "operator": "Equal", "value": "h100"}]
    assert launcher["nodeSelector"] == {"pool": "cpu"}
    assert launcher["tolerations"] == [{"operator": "Exists", "effect": "NoSchedule"}]


PLACEMENT_BLUEPRINT = blueprint_yaml("job", spec=MINIMAL_SPEC_YAML + textwrap.dedent("""\
      placement:
        worker:
          tolerations:
            - key: nvidia.com/gpu
              operator: Exists
              effect: NoSchedule
            - TOLERATION
    """))


@pytest.mark.parametrize("toleration, message", [
    ("{key: pool, operator: Exists, value: a100}",
     "a toleration with operator Exists takes no value; remove value or use operator Equal"),
    ("{operator: Equal, value: a100}",
     "a toleration without a key must have operator: Exists (it then tolerates every taint)"),
    ("{value: a100}", "a toleration without a key must have operator: Exists (it then tolerates every taint)"),
    ("{key: pool, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}",
     "tolerationSeconds only applies to effect: NoExecute"),
    ("{key: pool, operator: Exists, tolerationSeconds: 30}", "tolerationSeconds only applies to effect: NoExecute"),
], ids=["exists-with-value", "no-key-equal", "no-key-no-operator", "seconds-noschedule", "seconds-no-effect"])
def test_toleration_rules_are_checked_with_positions(cli, toleration, message):
    text = write("blueprints/job.yaml", PLACEMENT_BLUEPRINT.replace("TOLERATION", toleration))
    done = cli("validate", "blueprints")
    assert done.returncode == 2
    assert done.lines("error") == [f"{at('blueprints/job.yaml', text, '- ' + toleration, toleration)}: error: "
                                   f"spec.placement.worker.tolerations[1]: {message}"]


def test_rendered_objects_with_placement_validate_against_kubernetes():
    from tests.support.kubernetes_schema import validate

    add_blueprint("job", placement=PLACEMENT, gpusPerWorker=8)
    overlay("x", """\
        namespace: prod
        labels: {env: prod}
        annotations: {example.com/note: x}
        patches:
          - patch:
              spec:
                placement:
                  launcher:
                    tolerations: [{key: cpu-only, operator: Equal, value: "yes", effect: PreferNoSchedule}]
        """)
    objects = [yaml.safe_load(item.text) for item in rendered("x").objects]
    assert len(objects) == 6
    for obj in objects:
        validate(obj)
