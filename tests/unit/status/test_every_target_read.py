"""Every target of the table is read by `mpigen status`: status keeps what each target's
controllers write in a table of its own (mpigen.status.controller_state.READERS, the list calls
of mpigen.status.reads), outside the target packages (tests/unit/test_targets_named_once.py says
why), so this is what fails when a target is added to mpigen.render.targets and not to status.

The facts come from the targets themselves: the kind of the object each job is (its
`watched(objects).kind`) and the kinds of the objects it renders for a job."""

from __future__ import annotations

import pytest

from mpigen.render.targets import TARGETS
from mpigen.status.controller_state import READERS
from mpigen.status.reads import TOP_KINDS, reads
from tests.support.status_wanted import render


@pytest.mark.parametrize("target", list(TARGETS))
def test_status_reads_every_target(target):
    assert target in READERS, f"mpigen status has no reading of target {target}'s controllers"
    rendered = render(target)
    assert TOP_KINDS[target] == rendered.wanted.watched.kind
    listed = {(read.api_version, read.kind) for read in reads({target})}
    rendered_kinds = {(o["apiVersion"], o["kind"]) for o in rendered.objects}
    run_kinds = {kind for kind in rendered_kinds if kind[1] in ("Job", "StatefulSet", "JobSet", "TrainJob", "MPIJob")}
    assert run_kinds <= listed, f"target {target}: its run's kinds {sorted(run_kinds - listed)} are not listed"
    assert ("v1", "Pod") in listed
