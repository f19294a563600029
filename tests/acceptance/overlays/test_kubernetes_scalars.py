"""Plain scalars of a podTemplatePatch, in a blueprint and in an overlay's patch, reach the pods
as Kubernetes' own YAML reader reads them (issue 50): kubectl and the API server read YAML
with sigs.k8s.io/yaml, whose go-yaml v2 fork types a plain scalar in resolve.go (sigs.k8s.io/yaml
v1.4.0 goyaml.v2/resolve.go `resolve`): an integer is what Go's strconv.ParseInt(s, 0, 64)
reads once every `_` is removed (0o17 is 15, 0x1F is 31, 1_000 is 1000), `on`/`off` are
resolveMap's booleans, `~` its null, `1:30` a string (no base 60: "purposefully unsupported
here") and a timestamp stays its text (decode.go, for an interface{} target).

The expected values are written out by hand from those rules, never computed with mpigen."""

from __future__ import annotations

import textwrap

from tests.support.blueprints import blueprint_yaml
from tests.support.overlays import objects_of, overlay, pod_spec, rendered
from tests.support.text import write


def test_patch_scalars_in_a_blueprint_and_an_overlay_are_read_as_kubectl_reads_them():
    write("blueprints/job.yaml", blueprint_yaml("job", spec="""\
        image: example.com/train:1
        workers: 2
        command: [python, train.py]
        podTemplatePatch:
          worker:
            metadata:
              annotations:
                example.com/every: 1:30
            pod:
              terminationGracePeriodSeconds: 0o17
              priority: 0x1F
              enableServiceLinks: off
          launcher:
            pod:
              terminationGracePeriodSeconds: 0o17
        """))
    overlay("prod", textwrap.dedent("""\
        patches:
          - patch:
              spec:
                podTemplatePatch:
                  launcher:
                    metadata:
                      annotations:
                        example.com/since: 2001-12-14
                    pod:
                      activeDeadlineSeconds: 1_000
                      terminationGracePeriodSeconds: ~
        """))
    objects = objects_of(rendered("prod"))
    workers, launcher = objects[("StatefulSet", "job-worker")], objects[("Job", "job-launcher")]
    worker_pod, launcher_pod = pod_spec(workers), pod_spec(launcher)
    assert (worker_pod["terminationGracePeriodSeconds"], worker_pod["priority"]) == (15, 31)
    assert worker_pod["enableServiceLinks"] is False
    assert workers["spec"]["template"]["metadata"]["annotations"]["example.com/every"] == "1:30"
    assert launcher_pod["activeDeadlineSeconds"] == 1000
    assert "terminationGracePeriodSeconds" not in launcher_pod  # `~` is null, which a merge patch removes
    assert launcher["spec"]["template"]["metadata"]["annotations"]["example.com/since"] == "2001-12-14"
