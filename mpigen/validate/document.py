"""A blueprint document -> the Blueprint model, or diagnostics that point into the file.

Two passes: the pydantic model checks each field (mpigen.load.model); the rules across
fields (name length against the worker count, reserved names, clashing mounts, production
rules) run on the fields that are valid themselves. Every problem of a document is
returned, so one run reports them all; mpigen.pipeline gathers them across documents and
environments (and finds jobs defined twice).

Under overlays, a blueprint is validated as each overlay patches it, and every value the
file states must also be valid as written (written_problems), so that an overlay cannot
hide a bad value by replacing it: the per-value rules (is_per_value, VALUE_CHECKS) run on
the file itself, and the rules of the whole blueprint (required keys, rules across the
keys of a mapping, sums and limits across fields) on what the overlays give.
"""

from __future__ import annotations

from mpigen.errors import Diagnostic, Mark, error
from mpigen.formats.blueprint import Blueprint
from mpigen.kube.names import path_problem
from mpigen.load.document import Document, Loc
from mpigen.load.model import validate_model
from mpigen.validate.command import check_command
from mpigen.validate.container_names import check_container_names, check_init_container_names
from mpigen.validate.datasets import check_datasets, check_storage
from mpigen.validate.exec_strings import check_env_names, check_exec_strings
from mpigen.validate.fields import Fields
from mpigen.validate.gang import check_gang
from mpigen.validate.images import check_image_tags, check_patch_images
from mpigen.validate.kueue import check_kueue, check_kueue_keys, check_kueue_values
from mpigen.validate.names import check_name_length
from mpigen.validate.pod_patch import check_patch_overlap, check_pod_patch
from mpigen.validate.process_count import check_process_count
from mpigen.validate.production import (check_host_network, check_launcher_placement, check_mpirun_args,
                                        check_shared_memory, check_slots)
from mpigen.validate.reserved import Reserved, check_env, check_reserved_metadata
from mpigen.validate.scratch import check_scratch
from mpigen.validate.resources import (check_accelerators, check_hugepages, check_launcher_resources,
                                       check_resources)


def attributed(diagnostic: Diagnostic, doc: Document) -> Diagnostic:
    """A problem found in a value an overlay wrote is reported at the overlay's line; it
    also names the blueprint it was applied to."""
    if diagnostic.mark.path == doc.path:
        return diagnostic
    return Diagnostic(diagnostic.mark, f"{diagnostic.message} (applied to {doc.path})", diagnostic.severity)


def is_per_value(err: dict) -> bool:
    """Whether a field error is about a value as written, which no overlay can mend: its
    type, range, length, format, allowed values, an unknown key; and anything inside a
    list, which a merge patch can only replace whole. Not per value: a required key
    missing from a mapping (an overlay may supply it), and a rule across the keys of a
    mapping (a model validator, whose input is that mapping), which an overlay may change
    key by key: both hold for the blueprint the overlays give."""
    if any(isinstance(part, int) for part in err["loc"]):
        return True
    if err["type"] == "missing":
        return False
    return not (err["type"] == "value_error" and isinstance(err.get("input"), dict))


def written_problems(doc: Document, reserved: Reserved) -> list[Diagnostic]:
    """The problems of the values a file states, as written, whatever an overlay makes of
    them: every per-value field error (see is_per_value) and the checks of one value
    (VALUE_CHECKS). A blueprint whose every overlay replaces a bad value is still refused,
    at its own line; the rules across fields hold for the blueprint an overlay gives.
    Works on a part of a blueprint too (an overlay's patch): what it leaves out is not
    reported."""
    if not isinstance(doc.data, dict):
        return []
    _, diagnostics, bad = validate_model(doc, Blueprint, report=is_per_value)
    fields = Fields(doc, bad | doc.reported, reserved)
    for check in VALUE_CHECKS:
        check(fields, diagnostics)
    return diagnostics


def validate_document(doc: Document, reserved: Reserved) -> tuple[Blueprint | None, list[Diagnostic]]:
    """The blueprint, or None; and every diagnostic for the document: what loading found,
    field errors, and the cross-field checks whose fields are themselves valid."""
    if path_problem(doc.path):  # the path goes into the `# Source:` comment of every object
        return None, [error(Mark(doc.path), path_problem(doc.path))]
    if not isinstance(doc.data, dict):
        return None, doc.problems + [error(doc.start, "a blueprint must be a mapping with apiVersion, kind, "
                                                      "metadata and spec")]
    blueprint, diagnostics, bad = validate_model(doc, Blueprint)
    diagnostics = doc.problems + diagnostics
    diagnostics += cross_field_checks(doc, bad | doc.reported, reserved)
    if any(d.severity == "error" for d in diagnostics):
        blueprint = None
    return blueprint, diagnostics


# Every rule across fields, in the order they report.
CROSS_FIELD_CHECKS = (
    check_name_length, check_reserved_metadata, check_command, check_exec_strings, check_env_names,
    check_process_count,
    check_resources, check_env, check_datasets, check_pod_patch, check_container_names,
    check_init_container_names,
    # production rules
    check_accelerators, check_slots, check_mpirun_args, check_shared_memory, check_hugepages, check_host_network,
    check_launcher_placement, check_storage, check_scratch, check_gang, check_kueue, check_patch_overlap,
    check_image_tags, check_patch_images,
    check_launcher_resources, check_kueue_keys, check_kueue_values,
)
# The rules that judge one key, or a list (which a merge patch replaces whole), wrong
# wherever it stands: they also run on the file as written (written_problems), so that an
# overlay cannot hide what they find.
VALUE_CHECKS = (check_reserved_metadata, check_pod_patch, check_env, check_datasets, check_image_tags,
                check_patch_images, check_kueue_keys, check_exec_strings, check_env_names,
                check_init_container_names)


def cross_field_checks(doc: Document, bad: set[Loc], reserved: Reserved) -> list[Diagnostic]:
    f = Fields(doc, bad, reserved)
    out: list[Diagnostic] = []
    for check in CROSS_FIELD_CHECKS:
        check(f, out)
    return out
