"""Gang scheduling read back (mpigen.decompile.gang): from the MPIJob mpigen rendered, whose
annotation names the scheduler the operator's --gang-scheduling flag would otherwise be the
only one to know, into spec.scheduling.gang; from any other MPIJob, reported at the line."""

from __future__ import annotations

import pytest

from tests.support.text import pos
from tests.support.own_objects import imported, job

OURS = "{app.kubernetes.io/managed-by: mpigen}"


def with_annotations(text: str, annotations: str) -> str:
    return text.replace("  namespace: ml\n", f"  namespace: ml\n  annotations: {annotations}\n", 1)


def test_mpigens_mpijob_gives_its_gang_back():
    text = with_annotations(job(LABELS=OURS, POLICY="{schedulingPolicy: {queue: research, minAvailable: 3}}"),
                            "{mpigen.dev/gang-scheduler: volcano, mpigen.dev/gang-scheduler-name: volcano-gpu}")
    spec, reported = imported(text)
    assert reported == []
    assert spec["scheduling"] == {"gang": {"scheduler": "volcano", "schedulerName": "volcano-gpu",
                                           "minAvailable": 3, "queue": "research"}}


def test_the_minavailable_a_render_writes_for_a_waiting_launcher_is_left_to_it():
    text = with_annotations(job(LABELS=OURS, POLICY="{schedulingPolicy: {minAvailable: 2}}"),
                            "{mpigen.dev/gang-scheduler: scheduler-plugins}")
    text = text.replace("  slotsPerWorker: 1\n", "  slotsPerWorker: 1\n  launcherCreationPolicy: WaitForWorkersReady\n")
    spec, reported = imported(text)
    assert (spec["scheduling"], reported) == ({"gang": {"scheduler": "scheduler-plugins"}}, [])


@pytest.mark.parametrize("labels, annotations, policy", [
    ("{}", "{mpigen.dev/gang-scheduler: volcano}", "{queue: research}"),  # not mpigen's MPIJob
    (OURS, "{}", "{queue: research}"),  # no scheduler named
    (OURS, "{mpigen.dev/gang-scheduler: yunikorn}", "{queue: research}"),  # none mpigen renders
    (OURS, "{mpigen.dev/gang-scheduler: volcano}", "{minResources: {cpu: 4}}"),  # a field no blueprint says
], ids=["hand-written", "unnamed", "unknown-scheduler", "other-field"])
def test_any_other_scheduling_policy_is_reported_at_its_line(labels, annotations, policy):
    text = with_annotations(job(LABELS=labels, POLICY=f"{{schedulingPolicy: {policy}}}"), annotations)
    spec, reported = imported(text)
    assert "gang" not in spec.get("scheduling", {})
    assert [(where, "--gang-scheduling" in message) for _, where, message in reported] == [
        (pos(text, "schedulingPolicy"), True)]
