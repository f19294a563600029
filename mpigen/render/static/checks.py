"""What the static target cannot render, and the names its objects write into the pods:
the operator's ConfigMap and kubectl volumes and mounts, and its label keys."""

from __future__ import annotations

from mpigen.errors import Diagnostic
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.checks import launcher_on_host_network, one_workload_only, statefulset_name, worker_set_checks
from mpigen.render.names import CONFIG_MOUNT, CONFIG_VOLUME, KUBECTL_MOUNT, KUBECTL_VOLUME, OPERATOR_LABEL_KEYS
from mpigen.render.launcher_env import NVIDIA_ENV, OPENMPI5_ENV_NAMES
from mpigen.render.static.launcher import OPERATOR_ENV_NAMES
from mpigen.render.target import Options
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(CONFIG_VOLUME, KUBECTL_VOLUME), mounts=(CONFIG_MOUNT, KUBECTL_MOUNT),
                    env=(*OPENMPI5_ENV_NAMES, *(name for names in OPERATOR_ENV_NAMES.values() for name in names),
                         *NVIDIA_ENV),
                    labels=OPERATOR_LABEL_KEYS)


def checks(doc: Document, blueprint: Blueprint, options: Options) -> list[Diagnostic]:
    return (worker_set_checks(doc, blueprint, options.gitops) + statefulset_name(doc, blueprint, options.gitops)
            + one_workload_only(doc, blueprint, "static")
            + launcher_on_host_network(doc, blueprint, "the hostfile's <name>-launcher is itself; use the mpijob "
                                                       "target or keep the launcher off the host network"))
