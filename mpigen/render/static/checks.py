"""What the static target cannot render, and the names its objects write into the pods:
the operator's ConfigMap and kubectl volumes and mounts, and its label keys."""

from __future__ import annotations

from mpigen.compile.environment import CONFIG_MOUNT
from mpigen.errors import Diagnostic
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document
from mpigen.render.checks import jobset_only, launcher_on_host_network, worker_set_checks
from mpigen.render.names import CONFIG_VOLUME, KUBECTL_MOUNT, KUBECTL_VOLUME, OPERATOR_LABEL_KEYS
from mpigen.render.target import Options
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(CONFIG_VOLUME, KUBECTL_VOLUME), mounts=(CONFIG_MOUNT, KUBECTL_MOUNT),
                    labels=OPERATOR_LABEL_KEYS)


def checks(doc: Document, blueprint: Blueprint, options: Options) -> list[Diagnostic]:
    return (worker_set_checks(doc, blueprint, options.gitops) + jobset_only(doc, blueprint, "static")
            + launcher_on_host_network(doc, blueprint, "the hostfile's <name>-launcher is itself; use the mpijob "
                                                       "target or keep the launcher off the host network"))
