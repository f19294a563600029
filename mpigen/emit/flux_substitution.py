"""Every object mpigen writes survives Flux's post-build substitution unchanged: one that
holds `${` or `$$` anywhere (a shell line of its pods, a script of a ConfigMap, a CRD's
description) carries the annotation `kustomize.toolkit.fluxcd.io/substitute: disabled`.

A Flux Kustomization with `spec.postBuild` (substitute or substituteFrom) runs every object it
applies through envsubst, the whole object as YAML, keys and values (fluxcd/kustomize-controller
v1.9.0 internal/controller/kustomization_controller.go build -> fluxcd/pkg kustomize v1.35.0
kustomize_varsub.go SubstituteVariables, envsubst v1.7.0): `$$` becomes `$` everywhere,
`${VAR}` the variable's value, an expression the parser does not take (`${@}`, `${1:?x}`,
`${a[0]}`) fails the build, and since kustomize-controller v1.9 (feature gate
StrictPostBuildSubstitutions, on by default: internal/features/features.go) so does any
`${VAR}` without a default whose variable the Kustomization does not set. Whichever way, a
launcher's `${OMPI_COMM_WORLD_RANK}` would never reach the shell. The controller skips an
object that carries the label or annotation with the value "disabled", before it reads it.

Escaping instead (`$${VAR}`) would change the object for everyone who applies it without
postBuild (kubectl, Argo CD, a Kustomization without it): the shell would read `$$`, its own
process id. The annotation changes nothing else for any of them, so mpigen writes it under
every profile: output of `--gitops none` or `argocd` wrapped in a platform team's Flux
Kustomization with postBuild is applied as it is written too. An object without `${` or `$$`
goes through substitution unchanged, and carries no annotation. Values a blueprint means Flux
to substitute are not supported: say them per environment in an overlay.
"""

from __future__ import annotations

from typing import Any

from mpigen.emit.yaml import document_head, dump_object
from mpigen.kube.labels import FLUX_SUBSTITUTE
from mpigen.kube.sizes import compact_json

DISABLED = "disabled"
# What envsubst reads in a text: an expression, and the escape of a dollar (fluxcd/pkg envsubst
# v1.7.0 parse/scan.go scanLbrack, scanEscaped).
SUBSTITUTED = ("${", "$$")


def holds_substitution(value: Any) -> bool:
    """Whether any key or string of the value holds what envsubst would read. Read in the
    value's JSON (mpigen.kube.sizes.compact_json), written in one pass in C: JSON escapes
    neither `$` nor `{`, and writes a `"` before and after every key and string, so the two
    characters of a mark stand side by side in the JSON exactly when they do in one key or
    string of the value."""
    text = compact_json(value)
    return any(mark in text for mark in SUBSTITUTED)


def kept_from_substitution(obj: dict) -> dict:
    """The object, annotated so that Flux's substitution skips it if it holds `${` or `$$`
    (a copy: the object itself may be shared by several environments)."""
    return _annotated(obj) if holds_substitution(obj) else obj


def _annotated(obj: dict) -> dict:
    meta = obj["metadata"]
    return {**obj, "metadata": {**meta, "annotations": {**meta.get("annotations", {}), FLUX_SUBSTITUTE: DISABLED}}}


def kept_document(obj: dict, *comments: str | None) -> str:
    """The object's document as mpigen writes it (mpigen.emit.yaml.dump_object), annotated as
    kept_from_substitution says, read in the document itself: after its head (the `---` and
    comment lines, which are not the object's), a mark stands in the document exactly when it
    stands in a key or string of the object. The emitter escapes neither `$` nor `{` (nor writes
    them in an escape), breaks a string only at its line breaks (a literal block), and ends every
    key with `:` and every scalar with a line break or a quote, so no mark spans two of them."""
    text = dump_object(obj, *comments)
    if "${" in text or "$$" in text:  # SUBSTITUTED, anywhere in the document: most hold neither
        start = len(document_head(*comments))
        if text.find("${", start) >= 0 or text.find("$$", start) >= 0:
            text = dump_object(_annotated(obj), *comments)
    return text
