"""What each target can and cannot render of a blueprint's failure policy
(runPolicy.failurePolicy, mpigen.render.failure_policy), at the blueprint's lines."""

from __future__ import annotations

from mpigen.compile.blueprint import DOWNLOAD_PREFIX, LAUNCHER_CONTAINER, WORKER_CONTAINER
from mpigen.errors import Diagnostic, error, warning
from mpigen.formats.blueprint import Blueprint
from mpigen.load.document import Document

POLICY = ("spec", "runPolicy", "failurePolicy")


def written(doc: Document) -> bool:
    return doc.get(POLICY) is not None


def refused(doc: Document, message: str) -> list[Diagnostic]:
    """A target that has no failure policy: an error at the field, if it is written."""
    return [error(doc.key_mark(POLICY), f"spec.runPolicy.failurePolicy: {message}")] if written(doc) else []


def main_containers(blueprint: Blueprint) -> tuple[str, str]:
    """(launcher, worker) main container names of targets jobset and static."""
    main = blueprint.spec.mainContainer
    return main or LAUNCHER_CONTAINER, main or WORKER_CONTAINER


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


def static_checks(doc: Document, blueprint: Blueprint) -> list[Diagnostic]:
    """The static target renders the policy on the launcher's Job; the workers' StatefulSet
    has no failure policy: it restarts a failed or evicted worker pod, uncounted, always."""
    if not written(doc):
        return []
    launcher, worker = main_containers(blueprint)
    out = [warning(doc.key_mark(POLICY),
                   "spec.runPolicy.failurePolicy: with --target static the rules act on the launcher's Job (its "
                   "podFailurePolicy, with restartPolicy Never); the workers' StatefulSet restarts a failed or "
                   "disrupted worker pod whatever the rules, and a worker's failure reaches them only as mpirun's "
                   "exit code in the launcher; --target jobset applies them to the workers too")]
    policy = blueprint.spec.runPolicy.failurePolicy
    for number, rule in enumerate(policy.rules):
        if rule.onExitCodes is not None and rule.onExitCodes.containerName == worker != launcher:
            out.append(error(doc.value_mark((*POLICY, "rules", number, "onExitCodes", "containerName")),
                             f"spec.runPolicy.failurePolicy.rules[{number}].onExitCodes.containerName: with --target "
                             f"static {worker} runs in the workers' StatefulSet, which has no failure policy (it "
                             f"restarts its pods whatever their exit code); name {launcher}, whose exit code is "
                             "mpirun's, or use --target jobset"))
    return out + unknown_containers(doc, blueprint, [launcher, *download_containers(blueprint)], "static",
                                    also=(worker,))
