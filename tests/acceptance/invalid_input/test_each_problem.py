"""Invalid input, one class of problem per case: YAML syntax, duplicate and unknown keys,
wrong types, ranges, names, datasets, files that are no blueprints, missing keys, enums,
reserved names, clashes, YAML 1.1 surprises.

How every test here proves its point: see this folder's __init__.py."""

from __future__ import annotations

import pytest

from tests.support.text import pos
from tests.support.invalid_input import (ALIAS_BOMB, BASE, BINARY, BOMB_TIMEOUT, Case, DEPLOYMENT, LATIN1, NAMESPACED,
                                         TWO_DOCUMENTS, add_dataset, check_case, err, long_name, param, single,
                                         variant, yaml_syntax)


_tab = variant(("  workers: 4\n", "\tworkers: 4\n"))
_dup_top = variant(("  name: demo\n", "  name: demo\n  name: demo2\n"))
_dup_item = variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      pvc: other-claim\n"))
_no_env = variant(("  env:\n    NCCL_DEBUG: INFO\n", "  env:\n"))
_no_source = variant(("      pvc: imagenet-claim\n", ""))
_two_sources = variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      hostPath: /mnt/imagenet\n"))
_same_name = add_dataset("""\
    - name: imagenet
      mountPath: /data/other
      pvc: other-claim
    """)
_same_mount = add_dataset("""\
    - name: other
      mountPath: /data/imagenet
      pvc: other-claim
    """)

CASES = [
    # YAML syntax
    param("yaml-syntax-error", single(yaml_syntax, "horovod/horovod: 0.28.1", ": 0.28.1",
                                      msg=["invalid YAML", "mapping values are not allowed"])),
    param("yaml-tab-indent", single(_tab, "\tworkers", msg=["invalid YAML"])),
    # duplicate keys
    param("duplicate-key", single(_dup_top, "name: demo2", msg=["duplicate key 'name'", "line 4", "keep one"])),
    param("duplicate-key-in-dataset", single(_dup_item, "pvc: other-claim", msg=["duplicate key 'pvc'", "keep one"])),
    # unknown keys
    param("unknown-key-top-level", single(variant(("spec:\n", "status: {}\nspec:\n")), "status:",
                                          msg=["unknown key 'status'", "allowed keys"])),
    param("unknown-key-spec", single(variant(("  gpusPerWorker: 1\n", "  gpuPerWorker: 1\n")), "gpuPerWorker",
                                     msg=["spec: unknown key 'gpuPerWorker'", "did you mean 'gpusPerWorker'"])),
    param("unknown-key-spec.resources.wrker",
          single(variant(("    worker: {cpu", "    wrker: {cpu")), "wrker:",
                 msg=["spec.resources: unknown key 'wrker'", "did you mean 'worker'"])),
    param("unknown-key-in-dataset-item",
          single(variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      size: 10Gi\n")), "size:",
                 msg=["spec.datasets[0]: unknown key 'size'", "allowed keys", "mountPath"])),
    # wrong types
    param("wrong-type-workers-string", single(variant(("workers: 4", 'workers: "4"')), 'workers: "4"', '"4"',
                                              msg=["spec.workers", "expected an integer", "'4'"])),
    param("wrong-type-env-value-int", single(variant(("NCCL_DEBUG: INFO", "NCCL_DEBUG: 90")), "NCCL_DEBUG: 90", "90",
                                             msg=["spec.env.NCCL_DEBUG", "expected a string", "quotes"])),
    param("wrong-type-command-string",
          single(variant(("command: [python, /examples/train.py]", "command: python /examples/train.py")),
                 "command: python", "python", msg=["spec.command", "expected a list"])),
    param("wrong-type-command-item-int",
          single(variant(("command: [python, /examples/train.py]", "command: [python, /examples/train.py, --epochs, 90]")),
                 "--epochs, 90]", "90", msg=["spec.command[3]", "expected a string", "quotes"])),
    param("wrong-type-env-empty", single(_no_env, "  env:", "env", msg=["spec.env", "expected a mapping"])),
    # out of range
    param("range-workers-0", single(variant(("workers: 4", "workers: 0")), "workers: 0", "0",
                                    msg=["spec.workers", ">= 1"])),
    param("range-gpusPerWorker-negative", single(variant(("gpusPerWorker: 1", "gpusPerWorker: -1")),
                                                 "gpusPerWorker: -1", "-1", msg=["spec.gpusPerWorker", ">= 0"])),
    param("range-backoffLimit-negative", single(variant(("backoffLimit: 3", "backoffLimit: -1")),
                                                "backoffLimit: -1", "-1", msg=["spec.runPolicy.backoffLimit", ">= 0"])),
    # names
    *[param(f"name-not-dns1035-{name}", single(variant(("name: demo", f"name: {name}")), f"name: {name}", name,
                                               msg=["metadata.name", f"'{name}'", "DNS-1035", "lowercase"]))
      for name in ("Resnet", "1abc", "a_b")],
    param("name-worker-pod-64-chars", single(long_name(55, 4), "a" * 55, msg=["metadata.name", "63", "at most 54"])),
    param("name-worker-pod-64-chars-11-workers",
          single(long_name(54, 11), "a" * 54, msg=["metadata.name", "63", "at most 53"])),
    # datasets
    param("dataset-without-source", single(_no_source, "- name: imagenet", "name",
                                           msg=["spec.datasets[0]", "exactly one source", "none"])),
    param("dataset-with-two-sources", single(_two_sources, "- name: imagenet", "name",
                                             msg=["spec.datasets[0]", "exactly one source", "pvc, hostPath"])),
    # files that are not blueprints, or cannot be read
    param("kubernetes-deployment-named", single(DEPLOYMENT, "kind: Deployment", "Deployment", path="deployment.yaml",
                                                msg=["not a blueprint", "kind: MPIJobBlueprint"])),
    # Unreadable files and folders: tests/acceptance/inputs/test_unreadable.py, as a user who cannot read them.
    param("path-does-not-exist", Case({}, (("missing.yaml", 0, 0, ("no such file",)),), args=("missing.yaml",))),
    param("empty-folder", Case({}, (("empty", 0, 0, ("no blueprint found", "MPIJobBlueprint")),),
                               args=("empty",), dirs=("empty",))),
    param("folder-without-blueprints",
          Case({"manifests/deployment.yaml": DEPLOYMENT, "manifests/README.md": "# manifests\n"},
               (("manifests", 0, 0, ("no blueprint found", "MPIJobBlueprint")),), args=("manifests",))),
    param("binary-file", single(BINARY, b"de\x00mo", b"\x00", msg=["binary file", "NUL", "UTF-8 YAML"])),
    param("not-utf8", single(LATIN1, b"Jos\xe9", b"\xe9", msg=["not valid UTF-8", "save it as UTF-8"])),
    param("alias-bomb", single(ALIAS_BOMB, "[*a,", "*a", path="bomb.yaml", msg=["alias", "*a"],
                               timeout=BOMB_TIMEOUT)),
    # missing required keys: reported at the parent key
    param("missing-metadata.name", single(variant(("  name: demo\n", "")), "metadata:",
                                          msg=["metadata", "required key 'name'"])),
    param("missing-spec.image", single(variant(("  image: horovod/horovod:0.28.1\n", "")), "spec:",
                                       msg=["spec", "required key 'image'"])),
    param("missing-spec.workers", single(variant(("  workers: 4\n", "")), "spec:",
                                         msg=["spec", "required key 'workers'"])),
    param("missing-spec.command", single(variant(("  command: [python, /examples/train.py]\n", "")), "spec:",
                                         msg=["spec", "required key 'command'", "launcherCommand"])),
    # enums
    param("enum-framework", single(variant(("framework: horovod", "framework: pytorchh")), "pytorchh",
                                   msg=["spec.framework", "'pytorchh'", "'pytorch'"])),
    param("enum-mpiImplementation",
          single(variant(("  framework: horovod\n", "  framework: horovod\n  mpiImplementation: openmpi\n")),
                 "openmpi", msg=["spec.mpiImplementation", "'openmpi'", "'OpenMPI'"])),
    # reserved names
    param("reserved-label-app", single(variant(("    team: vision", "    app: vision")), "app: vision", "app",
                                       msg=["metadata.labels", "'app'", "choose another key"])),
    param("reserved-volume-name", single(variant(("- name: imagenet", "- name: mpi-job-config")), "mpi-job-config",
                                         msg=["spec.datasets[0].name", "mpi-job-config", "choose another name"])),
    param("reserved-mount-path", single(variant(("mountPath: /data/imagenet", "mountPath: /etc/mpi")), "/etc/mpi",
                                        msg=["spec.datasets[0].mountPath", "/etc/mpi", "choose another path"])),
    # clashes
    param("duplicate-dataset-name", single(_same_name, "name: imagenet\n      mountPath: /data/other", "imagenet",
                                           msg=["spec.datasets[1].name", "'imagenet'", "spec.datasets[0]", "unique"])),
    param("duplicate-dataset-mountPath",
          single(_same_mount, "mountPath: /data/imagenet\n      pvc: other-claim", "/data/imagenet",
                 msg=["spec.datasets[1].mountPath", "/data/imagenet", "spec.datasets[0]", "unique"])),
    param("duplicate-job-in-one-file",
          single(TWO_DOCUMENTS, "name: demo", "demo", after="---\n",
                 msg=["default/demo", "already defined at bad.yaml:{}:{}".format(*pos(BASE, "name: demo", "demo"))])),
    param("duplicate-job-in-two-files",
          Case({"a.yaml": NAMESPACED, "b.yaml": NAMESPACED},
               (err(NAMESPACED, "name: demo", "demo", path="b.yaml",
                    msg=["ml-team/demo", "already defined at a.yaml:{}:{}".format(*pos(NAMESPACED, "name: demo", "demo")),
                         "unique"]),),
               args=("a.yaml", "b.yaml"))),
    # YAML 1.1 surprises and tags
    param("yaml11-boolean-key", single(variant(("    NCCL_DEBUG: INFO", "    on: enabled")), "on: enabled", "on",
                                       msg=["'on'", "quote it"])),
    param("custom-tag", single(variant(("image: horovod", "image: !env horovod")), "!env",
                               msg=["'!env'", "not supported"])),
]


@pytest.mark.parametrize("case", CASES)
def test_invalid_input_is_reported_at_its_position(case, tmp_path, previous_render):
    check_case(case, tmp_path, previous_render)
