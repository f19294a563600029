"""The space of blueprints the property test of tests/system/test_e2e_property.py draws from:
a `Draw` is one blueprint, at most one overlay, the target it is rendered for, and what a run of
its job must show (the world size and the ranks per host), computed from the drawn values, never
from the rendered files.

Dimensions: the target (static, jobset, trainjob; mpijob in the refusal half only), given by
--target or by the overlay; workers and slots; the framework; the MPI implementation (Open MPI
5, MPICH); the user (root, or uid 1000 whose account the pretend pods' image has), stated in
spec.security or through podTemplatePatch, with or without fsGroup; the sshd port; the workers on
their nodes' network (spec.network.hostNetwork or podTemplatePatch); the launcher as a rank host;
a container port added by podTemplatePatch (named ssh, on the sshd port, or
another); a launcherCommand as an imported MPIJob has it (its -np right for the workers it was
written for, or wrong; --allow-run-as-root for Open MPI, whose prterun refuses root without it);
and an overlay that changes the number of workers, the user or the target.

Half the draws fit: each dimension that can make a blueprint wrong for its target takes only
values that should be accepted there (a user the target can run as, with fsGroup where it is not
root; no sshd port 22, no port of sshd's name or number, the host network only through
spec.network and without a rank launcher, a right -np that no overlay changes, and no MPICH line
of the blueprint's own where pods are reached by DNS names), so that the property's "accepted
means it runs" half is as well drawn as its "refused at a position" half.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from hypothesis import strategies as st

from tests.support.e2e.harness import NON_ROOT

RUN_TARGETS = ("static", "jobset", "trainjob")
FRAMEWORKS = ("horovod", "deepspeed", "pytorch", "tensorflow", "mxnet", "custom")
MPIS = ("OpenMPI", "MPICH")
PROGRAM = ["python", "/examples/train.py"]  # replaced by allreduce.py when the launcher runs
SSH_PORTS = (None, 22, 2022, 2222)  # None: the default (2222)
PATCHED_PORTS = (None, "named-ssh", "on-sshd-port", "other")
OPEN_MPI_AS_ROOT = ("--allow-run-as-root",)  # Open MPI 5's prterun refuses root without it
HOST_NETWORK = (None, None, "field", "patch")  # the workers on their nodes' network: spec.network or the patch


@dataclass(frozen=True)
class Draw:
    """One drawn job: what is written (blueprint, overlay, --target) and what must run."""

    blueprint: dict
    overlay: dict | None
    target_flag: str | None  # --target, or None where the overlay names the target
    target: str
    workers: int  # effective, after the overlay
    slots: int
    mpi: str
    run_as_worker: bool
    program: list[str]  # the tail of the launcher's command that the test replaces

    def world_size(self) -> int:
        return (self.workers + self.run_as_worker) * self.slots


def _user(draw: st.DrawFn, via: str, non_root: bool, fs_group: bool) -> tuple[dict, dict]:
    """(spec.security, podTemplatePatch) stating the user: uid 1000 or root (unset or 0)."""
    context = {}
    if non_root:
        context["runAsUser"] = NON_ROOT
    elif draw(st.booleans()):
        context["runAsUser"] = 0
    if fs_group:
        context["fsGroup"] = NON_ROOT
    if not context:
        return {}, {}
    if via == "security":
        return context, {}
    roles = draw(st.sampled_from([("launcher", "worker"), ("worker",)]))
    return {}, {role: {"pod": {"securityContext": dict(context)}} for role in roles}


def _port_patch(kind: str | None, sshd_port: int) -> dict:
    ports = {"named-ssh": [{"name": "ssh", "containerPort": 2200}],
             "on-sshd-port": [{"name": "metrics", "containerPort": sshd_port}],
             "other": [{"name": "metrics", "containerPort": 9090}]}.get(kind)
    return {"worker": {"container": {"ports": ports}}} if ports else {}


def _merge_patches(*patches: dict) -> dict:
    merged: dict = {}
    for patch in patches:
        for role, parts in patch.items():
            for part, value in parts.items():
                merged.setdefault(role, {}).setdefault(part, {}).update(value)
    return merged


@st.composite
def _spec(draw: st.DrawFn, workers: int, slots: int, mpi: str, target: str,
          fits: bool) -> tuple[dict, list[str], bool]:
    """(spec, the program, runAsWorker); fitting the target where `fits`."""
    spec = {"framework": draw(st.sampled_from(FRAMEWORKS)), "mpiImplementation": mpi,
            "image": "docker.io/kubeflow/mpi-horovod-mnist:latest", "workers": workers, "slotsPerWorker": slots,
            "resources": {"launcher": {"cpu": 1, "memory": "2Gi"}, "worker": {"cpu": 2, "memory": "4Gi"}}}
    run_as_worker = draw(st.booleans())
    own_line = not (fits and mpi == "MPICH" and target != "static")  # Hydra's own line needs -localhost
    np_drawn = draw(st.sampled_from([None, None, None, None, "right", *(() if fits else ("wrong",))])) \
        if own_line else None  # mostly the rendered line
    if np_drawn is None:
        spec["command"] = list(PROGRAM)
    else:  # as an imported MPIJob's: -np for the workers it had, and what its image needed (as root)
        np = (workers + run_as_worker) * slots + (0 if np_drawn == "right" else 1)
        spec["launcherCommand"] = ["mpirun", "-np", str(np), *(OPEN_MPI_AS_ROOT if mpi == "OpenMPI" else ()),
                                   *PROGRAM]
    port = draw(st.sampled_from([p for p in SSH_PORTS if not (fits and p == 22)]))
    if port is not None:
        spec["ssh"] = {"port": port}
    if run_as_worker:
        spec["launcher"] = {"runAsWorker": True}
    non_root = draw(st.booleans()) and not (fits and target == "static")  # static's workers run as root
    fs_group = non_root if fits else draw(st.booleans())
    security, user_patch = _user(draw, draw(st.sampled_from(["security", "patch"])), non_root, fs_group)
    if security:
        spec["security"] = security
    host_network = draw(st.sampled_from([h for h in HOST_NETWORK if not (fits and (h == "patch" or
                                                                                  (h and run_as_worker)))]))
    if host_network == "field":
        spec["network"] = {"hostNetwork": True}
    ports = [p for p in PATCHED_PORTS if not (fits and p in ("named-ssh", "on-sshd-port"))]
    patch = _merge_patches(user_patch, _port_patch(draw(st.sampled_from(ports)), port or 2222),
                           {"worker": {"pod": {"hostNetwork": True}}} if host_network == "patch" else {})
    if patch:
        spec["podTemplatePatch"] = patch
    return spec, list(PROGRAM), run_as_worker


@st.composite
def _overlay(draw: st.DrawFn, target: str, target_in_overlay: bool, fits: bool,
             frozen_np: bool) -> tuple[dict | None, int | None]:
    """(an overlay, the workers it sets): it names the target, or changes the workers or the user;
    fitting the target (and a -np frozen in a launcherCommand) where `fits`."""
    patch: dict = {}
    workers = draw(st.sampled_from([None, 1, 2, 3])) if not (fits and frozen_np) else None
    if workers is not None:
        patch["workers"] = workers
    if draw(st.booleans()) and not (fits and target == "static"):
        patch["security"] = {"runAsUser": NON_ROOT, "fsGroup": NON_ROOT} if fits or draw(st.booleans()) else \
            {"runAsUser": NON_ROOT}
    if not patch and not target_in_overlay:
        return None, None
    overlay = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "Overlay"}
    if target_in_overlay:
        overlay["target"] = target
    if patch:
        overlay["patches"] = [{"patch": {"spec": patch}}]
    return overlay, workers


@st.composite
def draws(draw: st.DrawFn, targets: tuple[str, ...] = RUN_TARGETS) -> Draw:
    """A job for one of `targets`, under a name of its own."""
    target = draw(st.sampled_from(targets))
    workers, slots, mpi = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.sampled_from(MPIS))
    fits = draw(st.booleans())
    spec, program, run_as_worker = draw(_spec(workers, slots, mpi, target, fits))
    target_in_overlay = draw(st.booleans())
    overlay, overlay_workers = draw(_overlay(target, target_in_overlay, fits, "launcherCommand" in spec)) \
        if draw(st.booleans()) or target_in_overlay else (None, None)
    name = f"p{secrets.token_hex(3)}"  # unique: the pretend cluster's namespaces are named after the pods
    blueprint = {"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint", "metadata": {"name": name},
                 "spec": spec}
    return Draw(blueprint, overlay, None if target_in_overlay else target, target, overlay_workers or workers,
                slots, mpi, run_as_worker, program)
