"""What the targets check of a blueprint's failure policy
(runPolicy.failurePolicy, mpigen.render.parts.failure_policy), at the blueprint's lines."""

from __future__ import annotations

from mpigen.compile.blueprint import DOWNLOAD_PREFIX, main_container_name
from mpigen.compile.mpijob import LAUNCHER, WORKER
from mpigen.errors import Diagnostic, error
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document

POLICY = ("spec", "runPolicy", "failurePolicy")


def written(doc: Document) -> bool:
    return doc.get(POLICY) is not None


def refused(doc: Document, message: str) -> list[Diagnostic]:
    """A target that has no failure policy: an error at the field, if it is written."""
    return [error(doc.key_mark(POLICY), f"spec.runPolicy.failurePolicy: {message}")] if written(doc) else []


def main_containers(blueprint: Blueprint) -> tuple[str, str]:
    """(launcher, worker) main container names of targets jobset and static, as compile names
    them (spec.mainContainer, else podTemplatePatch.<role>.containerName, else the default):
    a failure rule names a container by the name its pods have."""
    return main_container_name(blueprint.spec, LAUNCHER), main_container_name(blueprint.spec, WORKER)


def download_containers(blueprint: Blueprint) -> list[str]:
    return [f"{DOWNLOAD_PREFIX}{d.name}" for d in blueprint.spec.datasets if d.download is not None]


def unknown_containers(doc: Document, blueprint: Blueprint, names: list[str], target: str,
                       also: tuple[str, ...] = ()) -> list[Diagnostic]:
    """A rule's containerName must be a container of the pods it is for (the API server
    refuses a podFailurePolicy whose containerName the Job's pod template lacks); `also`
    are names the target refuses for a reason of its own."""
    policy = blueprint.spec.runPolicy.failurePolicy
    out = []
    for number, rule in enumerate(policy.rules if policy else []):
        name = rule.onExitCodes.containerName if rule.onExitCodes else None
        if name is not None and name not in (*names, *also):
            out.append(error(doc.value_mark((*POLICY, "rules", number, "onExitCodes", "containerName")),
                             f"spec.runPolicy.failurePolicy.rules[{number}].onExitCodes.containerName: with --target "
                             f"{target} the job's pods have no container {name}; name one of {', '.join(names)}, or "
                             "leave containerName out to match any container"))
    return out
