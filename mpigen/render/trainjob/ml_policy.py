"""Which Kubeflow Trainer runtimes a TrainJob import can carry: MPI's. The Trainer's API
(kubeflow/trainer v2.3.0, pkg/apis/trainer/v1alpha1/trainingruntime_types.go, MLPolicy and
MLPolicySource) gives a runtime one of torch, mpi, flux, jax or xgboost under mlPolicy, or
none (its JobSet runs as written). mpigen renders MPI jobs only: a blueprint imported from
another runtime's TrainJob would patch a launcher job that runtime lacks, which the
Trainer's webhook refuses, and its other targets would run the program once on an MPI
launcher."""

from __future__ import annotations

from mpigen.errors import Diagnostic, error
from mpigen.load.document import Document, field_path

POLICY = ("spec", "mlPolicy")
OTHER_POLICIES = ("torch", "flux", "jax", "xgboost")  # MLPolicySource's members besides mpi
RENDERED = ("mpigen renders MPI jobs only, on a runtime with mlPolicy.mpi (Open MPI, MPICH, Intel MPI): import a "
            "TrainJob of such a runtime, or keep this one as it is")


def not_mpi(runtime: Document) -> list[Diagnostic]:
    """The error of a runtime whose ML policy is not MPI's, at the line that says so."""
    kind = runtime.data.get("kind")
    policy = runtime.get(POLICY)
    others = [key for key in OTHER_POLICIES if isinstance(policy, dict) and key in policy]
    if others:
        loc = POLICY + (others[0],)
        return [error(runtime.key_mark(loc), f"{kind} {field_path(loc)}: a {others[0]} runtime; {RENDERED}")]
    if isinstance(policy, dict) and "mpi" in policy:
        return []
    loc = POLICY if policy is not None else ("spec",)
    return [error(runtime.key_mark(loc), f"{kind} {field_path(loc)}: a runtime without mlPolicy.mpi, whose JobSet "
                                         f"the Trainer runs as written; {RENDERED}")]
