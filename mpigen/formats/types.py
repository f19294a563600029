"""The constrained values the formats are made of: quantities, image references, names, paths, int32 numbers."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from mpigen.formats.patterns import ABSOLUTE_PATH, ENV_NAME, QUANTITY
from mpigen.kube.image import IMAGE, MAX_LENGTH, image_problem
from mpigen.kube.names import LABEL_VALUE, QUALIFIED_NAME, qualified_name_lengths_problem, resource_name_problem
from mpigen.kube.quantity import range_problem

# The GitOps profiles an overlay, mpigen.yaml or --gitops may name (mpigen.render.gitops).
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


def _in_range(value: str) -> str:
    """Kubernetes' bounds of a quantity (mpigen.kube.quantity), reported at the value."""
    problem = range_problem(value)
    if problem:
        raise PydanticCustomError("quantity_range", problem)
    return value


def _image_reference(value: str) -> str:
    """What the pattern cannot say of an image reference (the length of its name)."""
    problem = image_problem(value)
    if problem:
        raise PydanticCustomError("image_reference", f"{value!r} is not an image reference: {problem}")
    return value


def _qualified_name(value: str) -> str:
    """What the pattern cannot say of a qualified name (the lengths of its parts)."""
    problem = qualified_name_lengths_problem(value)
    if problem:
        raise PydanticCustomError("qualified_name", problem)
    return value


def _resource_name(value: str) -> str:
    """What the pattern cannot say of a resource name: the lengths of its parts, and an extended
    resource's rules (mpigen.kube.names.resource_name_problem)."""
    problem = resource_name_problem(value)
    if problem:
        raise PydanticCustomError("resource_name", problem)
    return value


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
