"""The live cluster a command talks to: a kubeconfig and a context (needs mpigen[cluster])."""

from __future__ import annotations

from importlib.util import find_spec

from mpigen.errors import NOWHERE, InputError, error
from mpigen.project.options import ClusterFlags
from mpigen.review.live import Cluster


def connect(flags: ClusterFlags, flag: str) -> Cluster:
    """The cluster for the command's `flag` (--server, --live); InputError without the
    kubernetes client."""
    if find_spec("kubernetes") is None:
        raise InputError([error(NOWHERE, f"{flag}: the live-cluster commands need the kubernetes client: pip install "
                                            "'mpigen[cluster]'")])
    return Cluster(flags.kubeconfig, flags.context)
