"""Accepted means it runs (issue 31, item 5): a property over drawn blueprints.

Hypothesis draws blueprints across the space of tests/support/e2e/blueprint_space.py (target,
workers, slots, framework, Open MPI 5 or MPICH, root or a non-root user stated in spec.security
or through podTemplatePatch, with or without fsGroup, the sshd port, the workers on their nodes'
network through spec.network or podTemplatePatch, the launcher as a rank host, a container port added by podTemplatePatch, launcherCommand's -np, overlays that change
the workers, the user or the target). For each, `mpigen render` by the CLI either
- refuses it: exit 2, no traceback, every error at PATH:LINE:COLUMN of the blueprint or the
  overlay, and no output written; or
- accepts it: the rendered objects pass the API server's checks of container ports
  (tests/support/e2e/admission.py) and run in the pretend cluster of their target, the way
  test_e2e_mpi.py, test_e2e_jobset.py and test_e2e_trainjob.py run them (real OpenSSH, Open MPI 5,
  MPICH), and the launcher's rendered command, its program replaced by allreduce.py, runs one
  allreduce over every rank host with exactly its slots: the workers the blueprint (after its
  overlay) asks for, and the launcher when it runs ranks.
The image is the one those tests model (tests/support/e2e/image.py): Python with mpi4py on the
default PATH, Open MPI 5 and MPICH, and nothing in its environment that lets Open MPI run as
root (OMPI_ALLOW_RUN_AS_ROOT): prterun then refuses root unless the command says
--allow-run-as-root, as it does by default. Its Open MPI is PyPI's, whose prterun starts each
remote daemon as `PRTE_PREFIX=...;export PRTE_PREFIX;...;prted ...`: under kubexec.sh's
`cat ... >> /etc/hosts && $*` only the first assignment waits for the append, so a non-root
static job's daemons start although the append fails; an Open MPI that sends a bare `prted`
would not (MPICH's `hydra_pmi_proxy` does not).

CI runs DRAWS draws with a seed fixed by the test (derandomized, no example database), found
again on every machine; MPIGEN_PROPERTY_DRAWS=N runs N draws, and MPIGEN_PROPERTY_RUN=long
(tests/support/properties.py) ten times as many, randomly. No shrinking by default: each step of
it is a cluster run, and CI's budget is minutes; MPIGEN_PROPERTY_SHRINK=1 shrinks a failure to a
minimal blueprint.

Left out, because the pretend cluster cannot model it (no draw contains it, none is skipped):
- the mpijob target's run: the objects a cluster gets for an MPIJob are made by the MPI
  Operator (v2beta1: a Secret with a generated key, a Service, worker pods that run the image's
  own sshd entrypoint; kubeflow.org/v1: bare pods and kubectl exec), of which the pretend
  cluster has no port. Its draws check the refusal half and the API server's port checks only
  (test_mpijob_blueprints_are_rendered_or_refused_at_a_position).
- Intel MPI: not installed on the machine (only Open MPI 5 and MPICH are).
- two workers on one node's network: each pretend pod on its node's network is a node of its
  own (cluster.py: the node's host name, address, /etc/hosts and sshd on port 22, and cluster
  DNS only with dnsPolicy ClusterFirstWithHostNet); with no scheduler in the pretend cluster,
  the host network's one-worker-per-node rule is out of this property's reach.
- GPUs, datasets, placement, gang scheduling and Kueue: the pretend cluster has no scheduler,
  no devices, and only emptyDir, configMap, secret and projected volumes (so the trainjob
  target's gang scheduling, which never starts a pod, is out of this property's reach).
Needs what test_e2e_jobset.py needs: skipped with the reason elsewhere, never under CI.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings

from tests.support.e2e.admission import admit
from tests.support.e2e.blueprint_space import Draw, draws
from tests.support.e2e.harness import missing, missing_for_ssh, rendered_objects, require
from tests.support.e2e.property_run import refusal_problems, render_draw, run_draw
from tests.support.properties import LONG, examples

DRAWS = examples(int(os.environ.get("MPIGEN_PROPERTY_DRAWS", "30")))  # about 5.5 s a run, 1.3 s a refusal
MPIJOB_DRAWS = 20  # renders only: about 1.3 s each
PHASES = (Phase.explicit, Phase.generate, *((Phase.shrink,) if os.environ.get("MPIGEN_PROPERTY_SHRINK") else ()))
PROPERTY = settings(max_examples=DRAWS, derandomize=not LONG, database=None, deadline=None, phases=PHASES,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def machine():
    require(missing() or missing_for_ssh(), "property test of the end-to-end runs")


def _folder(tmp_path: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp_path))


@PROPERTY
@given(draw=draws())
def test_every_accepted_blueprint_runs_and_every_refused_one_is_positioned(machine, tmp_path, draw: Draw):
    folder = _folder(tmp_path)
    try:
        done, given_files, out = render_draw(draw, folder)
        event(f"{draw.target}: {'refused' if done.returncode else 'ran'}")  # --hypothesis-show-statistics
        if done.returncode != 0:
            assert refusal_problems(done, given_files, out) == [], done.stderr.decode(errors="replace")
            return
        seen, hosts = run_draw(draw, rendered_objects(out), folder / "cluster")
        assert seen["size"] == draw.world_size()
        assert sorted({rank["host"] for rank in seen["ranks"]}) == sorted(hosts)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@settings(max_examples=examples(MPIJOB_DRAWS), derandomize=not LONG, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(draw=draws(targets=("mpijob",)))
def test_mpijob_blueprints_are_rendered_or_refused_at_a_position(tmp_path, draw: Draw):
    """For the mpijob target, whose run the pretend cluster cannot model: the refusal half, and
    the API server's checks of container ports on what it accepts."""
    folder = _folder(tmp_path)
    try:
        done, given_files, out = render_draw(draw, folder)
        if done.returncode != 0:
            assert refusal_problems(done, given_files, out) == [], done.stderr.decode(errors="replace")
        else:
            admit(rendered_objects(out))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
