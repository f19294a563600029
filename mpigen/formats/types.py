"""The constrained values the formats are made of: quantities, image references, names, paths, int32 numbers."""

from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from mpigen.formats.patterns import ABSOLUTE_PATH, ENV_NAME, QUANTITY
from mpigen.kube.image import IMAGE, MAX_LENGTH, image_problem
from mpigen.kube.names import LABEL_VALUE, QUALIFIED_NAME, qualified_name_lengths_problem, resource_name_problem
from mpigen.kube.quantity import range_problem

# The GitOps profiles an overlay, mpigen.yaml or --gitops may name (mpigen.render.parts.gitops).
GitOpsProfile = Literal["none", "argocd", "flux"]
GITOPS_PROFILES: tuple[str, ...] = get_args(GitOpsProfile)
# The Pod Security Standards' levels (mpigen.kube.pod_security.LEVELS) a namespace may enforce.
PodSecurityLevel = Literal["privileged", "baseline", "restricted"]

# The largest int32 (Go's math.MaxInt32). A number mpigen writes into a field whose OpenAPI
# schema says `format: int32` (a Job's ttlSecondsAfterFinished and backoffLimit, a
# StatefulSet's replicas, a container port, JobSet's ttlSecondsAfterFinished and maxRestarts,
# the Trainer's numNodes: tests/unit/formats/test_int32.py lists each field and where it goes)
# must fit one, or the API server refuses the object. The type's bound wins over an `le` in
# the field's own Field (pydantic applies the Annotated metadata last), so a field with a
# smaller bound of its own (workers, backoffLimit) stays an int with its `le`; the test
# proves that bound is within int32 too.
INT32_MAX = 2**31 - 1
Int32 = Annotated[int, Field(le=INT32_MAX)]


def number_to_string(value: Any) -> Any:
    """Quantities may be written as YAML numbers (cpu: 16), as in Kubernetes manifests."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return value


def _refusing(kind: str, problem_of: Callable[[str], str | None], says: str = "{problem}") -> Callable[[str], str]:
    """An after-validator for what a pattern cannot say of a value: the problem `problem_of`
    finds, reported at the value as a `kind` error, in the words of `says`."""
    def check(value: str) -> str:
        problem = problem_of(value)
        if problem:
            raise PydanticCustomError(kind, says.format(value=value, problem=problem))
        return value
    return check


# Kubernetes' bounds of a quantity (mpigen.kube.quantity).
_in_range = _refusing("quantity_range", range_problem)
# The length of an image reference's name.
_image_reference = _refusing("image_reference", image_problem, "{value!r} is not an image reference: {problem}")
# The lengths of a qualified name's parts.
_qualified_name = _refusing("qualified_name", qualified_name_lengths_problem)
# The lengths of a resource name's parts, and an extended resource's rules (mpigen.kube.names.resource_name_problem).
_resource_name = _refusing("resource_name", resource_name_problem)


ImageReference = Annotated[str, Field(pattern=IMAGE, min_length=1, max_length=MAX_LENGTH), AfterValidator(_image_reference)]
Quantity = Annotated[
    str,
    BeforeValidator(number_to_string),
    Field(pattern=QUANTITY, max_length=64),
    AfterValidator(_in_range),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": QUANTITY, "maxLength": 64},
                              {"type": "integer", "minimum": 0}, {"type": "number", "minimum": 0}]}),
]
ResourceName = Annotated[str, Field(pattern=QUALIFIED_NAME, max_length=253), AfterValidator(_resource_name)]
RunName = Annotated[
    str,
    BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
    Field(pattern=LABEL_VALUE, min_length=1, max_length=63),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": LABEL_VALUE, "minLength": 1, "maxLength": 63},
                              {"type": "integer", "minimum": 0}]}),
]
LabelKey = Annotated[str, Field(pattern=QUALIFIED_NAME, max_length=316), AfterValidator(_qualified_name)]
LabelValue = Annotated[str, Field(pattern=LABEL_VALUE, max_length=63)]
EnvName = Annotated[str, Field(pattern=ENV_NAME, max_length=256)]
AbsolutePath = Annotated[str, Field(pattern=ABSOLUTE_PATH, max_length=4096)]
Arg = Annotated[str, Field(max_length=65536)]
