"""The failure policy of a blueprint (runPolicy.failurePolicy): which pod failures end the
job, which restart it counted against runPolicy.backoffLimit, which restart it without
counting, and which are ignored.

The rules are the Kubernetes Job's pod failure policy rules (batch/v1 PodFailurePolicyRule),
checked here as the API server checks them (kubernetes/kubernetes
pkg/apis/batch/validation/validation.go, validatePodFailurePolicy and its rule checks:
at most 20 rules, at most 255 exit codes, unique and in ascending order, no 0 with In, one
of onExitCodes and onPodConditions, at most 20 condition patterns of a qualified type and a
status of True, False or Unknown), with the actions named for what they do to the whole job.
Each target renders them with its own controllers' means (mpigen.render.parts.failure_policy).
"""

from typing import Annotated, Literal, Optional

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from mpigen.formats.base import Model
from mpigen.formats.types import LabelKey
from mpigen.kube.names import DNS1123_LABEL

# What a matching failure does to the job: end it (FailJob), restart it counted against
# runPolicy.backoffLimit (Restart), restart it without counting (RestartWithoutCounting), or
# replace the failed pod alone, uncounted, as the Job controller's Ignore does (Ignore).
Action = Literal["FailJob", "Restart", "RestartWithoutCounting", "Ignore"]
DISRUPTION = "DisruptionTarget"  # the pod condition of a preemption, an eviction or a node's drain or shutdown
MAX_POD_RULES = 20  # maxPodFailurePolicyRules; the disruption rule is one of them
MAX_EXIT_CODES = 255  # maxPodFailurePolicyOnExitCodesValues
MAX_CONDITIONS = 20  # maxPodFailurePolicyOnPodConditionsPatterns
EXIT_CODE_MIN, EXIT_CODE_MAX = -(2**31), 2**31 - 1  # an int32


def _unique_and_ordered(values: list[int]) -> list[int]:
    """validatePodFailurePolicyRuleOnExitCodes: each value once, in ascending order."""
    for earlier, later in zip(values, values[1:]):
        if earlier == later:
            raise PydanticCustomError("exit_codes", "exit code {value} is listed twice; list each once",
                                      {"value": later})
        if earlier > later:
            raise PydanticCustomError("exit_codes", "exit codes must be in ascending order ({earlier} before "
                                      "{later}), as the API server requires; write {ordered}",
                                      {"earlier": earlier, "later": later, "ordered": sorted(set(values))})
    return values


ExitCodes = Annotated[list[Annotated[int, Field(ge=EXIT_CODE_MIN, le=EXIT_CODE_MAX)]],
                      Field(min_length=1, max_length=MAX_EXIT_CODES), AfterValidator(_unique_and_ordered)]


class OnExitCodes(Model):
    """Container exit codes: a pod matches when one of its terminated containers (or init
    containers) exited with a code other than 0 that is In (or NotIn) the values."""

    operator: Literal["In", "NotIn"] = Field(description="In: one of the values; NotIn: none of them.")
    values: ExitCodes = Field(description="Exit codes, in ascending order, each once (at most 255).",
                              examples=[[3]])
    containerName: Optional[str] = Field(
        None, pattern=DNS1123_LABEL, max_length=63,
        description="Only this container's exit code (a container of the pods the rule is rendered into); "
                    "default: any container of the pod.", examples=["mpi-launcher"])

    @model_validator(mode="after")
    def _no_success(self) -> "OnExitCodes":
        if self.operator == "In" and 0 in self.values:
            raise ValueError("exit code 0 is success and cannot be matched with In (the API server refuses it); "
                             "remove 0 from values")
        return self


class OnPodCondition(Model):
    type: LabelKey = Field(description="A pod condition type, e.g. DisruptionTarget.", examples=[DISRUPTION])
    status: Literal["True", "False", "Unknown"] = Field("True", description="The condition's status.")


class FailureRule(Model):
    """One rule: a requirement on the failed pod (exit codes or pod conditions) and what its
    failure does to the job. The first rule that matches decides."""

    action: Action = Field(description="FailJob: the job fails at once, without a restart. Restart: the job "
                                       "restarts, counted against runPolicy.backoffLimit. RestartWithoutCounting: "
                                       "the job restarts, not counted. Ignore: the failed pod alone is replaced, "
                                       "not counted.", examples=["FailJob"])
    onExitCodes: Optional[OnExitCodes] = Field(None, description="Matches by container exit codes.")
    onPodConditions: Optional[list[OnPodCondition]] = Field(
        None, min_length=1, max_length=MAX_CONDITIONS, description="Matches a pod with any of these conditions.")

    @model_validator(mode="after")
    def _one_requirement(self) -> "FailureRule":
        if (self.onExitCodes is None) == (self.onPodConditions is None):
            raise ValueError("give exactly one of onExitCodes and onPodConditions (the Job's pod failure policy "
                             "takes one requirement per rule)")
        return self


class FailurePolicy(Model):
    """Which failures end the job, which restart it, and which do not count."""

    disruptions: Action = Field(
        "RestartWithoutCounting",
        description="What a disrupted pod (condition DisruptionTarget: preemption, eviction, node drain or "
                    "shutdown, spot reclaim) does to the job; checked before the rules. Default: the job "
                    "restarts without counting against runPolicy.backoffLimit.")
    rules: list[FailureRule] = Field(
        default_factory=list, max_length=MAX_POD_RULES - 1,
        description="Rules checked in order after the disruption rule; the first that matches decides. A failure "
                    "no rule matches restarts the job, counted against runPolicy.backoffLimit.",
        examples=[[{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]])

    def pod_rules(self) -> list[FailureRule]:
        """Every rule in the order the pods' controllers check them: the disruption rule first."""
        disrupted = FailureRule(action=self.disruptions, onPodConditions=[OnPodCondition(type=DISRUPTION)])
        return [disrupted, *self.rules]
