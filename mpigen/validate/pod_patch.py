"""spec.podTemplatePatch: only Kubernetes fields that no blueprint field writes, no fractions,
and no privileged container behind the blueprint's back.
"""

from __future__ import annotations


from mpigen.errors import Diagnostic, close_matches, error
from mpigen.formats.pod_field_types import JSON_TYPES, TYPES
from mpigen.formats.pod_template_patch import CONTAINER_FIELDS, CONTAINER_OWNED, POD_FIELDS, POD_OWNED
from mpigen.load.document import Document, Loc, field_path
from mpigen.validate.fields import Fields, run_as_worker, spec

# Blueprint fields that only reach rank pods (the launcher only with launcher.runAsWorker),
# and those that only reach the launcher.
RANK_ONLY = {("placement", "worker", "onePodPerNode"), ("network", "hostNetwork"), ("security", "capabilities"),
             ("security", "privileged"), ("network", "rdma")}
LAUNCHER_ONLY = {("datasets", "*", "download")}
# Fields of podTemplatePatch that a blueprint field also writes: setting both would let the
# patch silently win over the field.
POD_PATCH_FIELDS = {
    "affinity": (("placement", "{role}", "affinity"), ("placement", "worker", "onePodPerNode"),
                 ("network", "hostNetwork")),
    "priorityClassName": (("placement", "{role}", "priorityClassName"),),
    "hostNetwork": (("network", "hostNetwork"),),
    "dnsPolicy": (("network", "hostNetwork"),),
    "securityContext": (("security", "runAsUser"), ("security", "runAsGroup"), ("security", "fsGroup"),
                        ("security", "runAsNonRoot")),
    "imagePullSecrets": (("imagePullSecrets",),),
    "serviceAccountName": (("serviceAccount", "name"), ("serviceAccount", "annotations")),
    "schedulerName": (("scheduling", "gang"),),
    "initContainers": (("datasets", "*", "download"),),  # a patch replaces the list: the downloads would go
}
CONTAINER_PATCH_FIELDS = {
    "securityContext": (("security", "capabilities"), ("security", "privileged"), ("network", "rdma")),
}


def check_pod_patch(f: Fields, out: list[Diagnostic]) -> None:
    """podTemplatePatch may only set Kubernetes fields the blueprint has no field for."""
    for role in ("launcher", "worker"):
        for part, fields, owned in (("pod", POD_FIELDS, POD_OWNED), ("container", CONTAINER_FIELDS, CONTAINER_OWNED)):
            loc = ("spec", "podTemplatePatch", role, part)
            if not f.ok(loc):
                continue
            for key in f.get(loc, {}):
                where = f"spec.podTemplatePatch.{role}.{part}"
                if key not in fields:
                    hint = close_matches(key, fields)
                    also = f"; did you mean {hint[0]!r}?" if hint else ""
                    out.append(error(f.doc.key_mark(loc + (key,)),
                                     f"{where}: {key!r} is not a Kubernetes {'pod spec' if part == 'pod' else 'container'} "
                                     f"field{also}"))
                elif key in owned:
                    out.append(error(f.doc.key_mark(loc + (key,)), f"{where}: {key!r} cannot be patched: {owned[key]}"))
                elif role == "launcher" and part == "pod" and key in ("serviceAccountName", "serviceAccount"):
                    out.append(error(f.doc.key_mark(loc + (key,)),
                                     f"{where}: {key!r} cannot be patched: the launcher runs as <name>-launcher, "
                                     "the account the operator's Role is bound to"))
                elif (wrong := _mistyped(f.doc, loc + (key,), _DEFINITION[part][key])):
                    out += wrong
                else:
                    out += _fractions(f.doc, loc + (key,))


_DEFINITION = {"pod": TYPES["PodSpec"], "container": TYPES["Container"]}
_A = {"object": "a mapping", "array": "a list", "integer": "a whole number", "boolean": "true or false",
      "string": "a string"}
_PYTHON = {"object": dict, "array": list, "string": str, "boolean": bool}


def _mistyped(doc: Document, loc: Loc, kind: str) -> list[Diagnostic]:
    """The values under loc of another JSON type than their field's (TYPES), each at its line;
    a mapping of a definition of the table, and a list's items, judged in turn. null is the
    merge patch's removal; a number with a fraction is _fractions' to report."""
    value = doc.get(loc)
    if value is None:
        return []
    base = "array" if kind.startswith("[") else kind if kind in JSON_TYPES else "object"
    python = _PYTHON.get(base)
    if (not isinstance(value, python)) if python else (not isinstance(value, (int, float)) or isinstance(value, bool)):
        return [error(doc.value_mark(loc), f"{field_path(loc)}: expected {_A[base]}, got {_kind(value)}, which the "
                                           "API server cannot read (\"cannot unmarshal\"); write it as the "
                                           "Kubernetes field is written")]
    if base == "array":
        return [d for i in range(len(value)) for d in _mistyped(doc, loc + (i,), kind[1:-1])]
    if not isinstance(value, dict):
        return []
    fields = TYPES.get(kind, {})
    return [d for key in value if key in fields for d in _mistyped(doc, loc + (key,), fields[key])]


def _kind(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def _fractions(doc: Document, loc: Loc) -> list[Diagnostic]:
    """No pod or container field takes a number with a fraction (numbers are int32 or
    int64, quantities int-or-string): each one under loc, at its line."""
    found, pending = [], [loc]
    while pending:
        at = pending.pop()
        value = doc.get(at)
        if isinstance(value, float):
            found.append(error(doc.value_mark(at), f"{field_path(at)}: {value!r} has a fraction, which no pod or "
                                                   "container field takes; write a whole number, or a quantity as "
                                                   f'a string ("{value}")'))
        elif isinstance(value, dict):
            pending += [at + (key,) for key in value]
        elif isinstance(value, list):
            pending += [at + (index,) for index in range(len(value))]
    return found


def check_patch_overlap(f: Fields, out: list[Diagnostic]) -> None:
    """A podTemplatePatch field that a blueprint field also sets; and privileged containers,
    which only spec.security.privileged may ask for."""
    data = spec(f)
    launcher_ranks = run_as_worker(f)
    for role in ("launcher", "worker"):
        for part, table in (("pod", POD_PATCH_FIELDS), ("container", CONTAINER_PATCH_FIELDS)):
            loc = ("spec", "podTemplatePatch", role, part)
            if not f.ok(loc):
                continue
            patch = f.get(loc, {})
            for key in patch:
                for field in table.get(key, ()):
                    if (field in RANK_ONLY and role == "launcher" and not launcher_ranks) or \
                            (field in LAUNCHER_ONLY and role == "worker"):
                        continue  # the blueprint field does not write this role's pods
                    path = tuple(p.format(role=role) for p in field)
                    value = _dig(data, path)
                    if value not in (None, False, [], {}):
                        field_name = ".".join(path).replace(".*.", "[].")
                        out.append(error(f.doc.key_mark(loc + (key,)),
                                         f"spec.podTemplatePatch.{role}.{part}.{key} is also written by "
                                         f"spec.{field_name}; set it in one place"))
                        break
            context = patch.get("securityContext") if part == "container" else None
            if isinstance(context, dict) and context.get("privileged") is True:
                out.append(error(f.doc.key_mark(loc + ("securityContext", "privileged")),
                                 f"spec.podTemplatePatch.{role}.container.securityContext.privileged: privileged "
                                 "containers are asked for with spec.security.privileged: true, where a reviewer "
                                 "sees it; prefer spec.security.capabilities"))


def _dig(data, path):
    """The value at path; `*` takes the first list item that has a value there."""
    for index, part in enumerate(path):
        if part == "*":
            items = data if isinstance(data, list) else []
            found = [v for v in (_dig(item, path[index + 1:]) for item in items) if v not in (None, False, [], {})]
            return found[0] if found else None
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data
