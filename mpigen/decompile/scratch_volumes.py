"""`mpigen import`, the scratch volumes: an emptyDir or a generic ephemeral volume becomes a
dataset's emptyDir or ephemeral source, in the form compile.dataset_volume writes; what
that form cannot say is reported at its line.

Each reader takes (reader, the volume source's body, its location) and returns
{"dataset": the dataset's source fields} or None (the volume is no dataset, reported).
"""

from __future__ import annotations

from mpigen.kube.quantity import parse

QUANTITY_TYPES = (str, int, float)


def _quantity(value) -> str | None:
    """A quantity as a blueprint writes it (a string), or None when it is none."""
    if isinstance(value, bool) or not isinstance(value, QUANTITY_TYPES):
        return None
    text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    try:
        parse(text)
    except ValueError:
        return None
    return text


def empty_dir(r, body: dict, here):
    for key in body:
        if key not in ("medium", "sizeLimit"):
            r.lost(here + (key,), f"the emptyDir volume's {key}")
    medium = body.get("medium", "")
    if medium not in ("", "Memory"):
        r.lost(here[:-1], f"the emptyDir volume of medium {medium!r} (a scratch dataset is on the node's disk "
                          "or in memory)")
        return None
    source: dict = {"medium": "Memory"} if medium == "Memory" else {}
    if "sizeLimit" in body:
        size = _quantity(body["sizeLimit"])
        if size is None:
            r.refuse(here + ("sizeLimit",), "sizeLimit is a quantity such as 64Gi")
            return None
        if parse(size) == 0:
            r.differs(here + ("sizeLimit",), "a sizeLimit of 0, which the kubelet treats as no limit (its eviction "
                                             "and tmpfs sizing use only a positive one); the imported dataset has "
                                             "none")
        else:
            source["sizeLimit"] = size
    return {"dataset": {"emptyDir": source}, "scratch": True}


def ephemeral(r, body: dict, here):
    for key in body:
        if key != "volumeClaimTemplate":
            r.lost(here + (key,), f"the ephemeral volume's {key}")
    template = body.get("volumeClaimTemplate")
    tloc = here + ("volumeClaimTemplate",)
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        r.refuse(tloc if "volumeClaimTemplate" in body else here,
                 "an ephemeral volume needs volumeClaimTemplate.spec (the API server refuses it without)")
        return None
    for key in template:
        if key != "spec":
            r.lost(tloc + (key,), f"the claim template's {key} (a scratch dataset's claims carry only what "
                                  "Kubernetes gives them)")
    spec, sloc = template["spec"], tloc + ("spec",)
    for key in spec:
        if key not in ("accessModes", "storageClassName", "resources") and not (key == "volumeMode"
                                                                                 and spec[key] == "Filesystem"):
            r.lost(sloc + (key,), f"the claim's {key}")
    if spec.get("accessModes") != ["ReadWriteOnce"]:
        r.differs(sloc + ("accessModes",) if "accessModes" in spec else sloc,
                  "a claim that is not [ReadWriteOnce]; each pod has a claim of its own, so a scratch dataset's "
                  "is ReadWriteOnce")
    resources = spec.get("resources") if isinstance(spec.get("resources"), dict) else {}
    for key in resources:
        if key != "requests":
            r.lost(sloc + ("resources", key), f"the claim's resources.{key}")
    requests = resources.get("requests") if isinstance(resources.get("requests"), dict) else {}
    size = _quantity(requests.get("storage"))
    if size is None or parse(size) == 0:
        r.refuse(sloc + ("resources",) if "resources" in spec else sloc,
                 "the claim needs a positive resources.requests.storage (the API server refuses it without)")
        return None
    out: dict = {}
    if isinstance(spec.get("storageClassName"), str) and spec["storageClassName"]:
        out["storageClass"] = spec["storageClassName"]
    elif "storageClassName" in spec:
        r.differs(sloc + ("storageClassName",), "a storageClassName that names no class (only a volume made "
                                                "beforehand binds); a scratch dataset without storageClass takes "
                                                "the cluster's default class")
    out["size"] = size
    return {"dataset": {"ephemeral": out}, "scratch": True}
