"""The names of everything mpigen writes into a companion folder (the GitOps controllers' own
objects, mpigen.emit.companions, and their files), and of the folders of the output that hold
the cluster-scoped objects of several environments: one function per kind of name, made so
that no two names of one folder can meet, whatever the environments, namespaces and jobs.

The scheme. A part written "doubled" has each of its '-' doubled; parts are joined by one '-'.
With E an environment (overlay), N a namespace, J a job and S a step of a target's Flux steps
(mpigen.render.target.FluxSteps, a word without '-'):

    Flux Kustomizations                          Argo CD Applications
    mpigen-<E doubled>          environment      mpigen-<E>                 environment
    mpigen-<E doubled>-<S>      environment step mpigen--cluster--<D>-<h>   cluster (destination D)
    mpigen-<E dbl>-<N dbl>-<J>-<S>   job step
    mpigen--cluster             cluster
    mpigen--[<readable>-]<hash>[-<S>]  hashed fallback, in either folder

Without overlays the render has one environment, "": its names drop `<E doubled>-` (the whole
environment is `mpigen`).

Why they never meet. A DNS label starts and ends with a letter or digit, so a doubled part does
too and holds '-' only in runs of even length: a '-' with a letter or digit on both sides (a
single '-') is a separator, never inside a doubled part. A plain name is `mpigen-` and a letter or
digit; the first single '-' after that ends the environment, and the number of single '-' after
`mpigen-` says the kind: 0 for an environment, 1 for an environment step, at least 3 for a job step
(the job J, written last and as it is, may add more; the step after it holds none). Without
overlays there is one environment and no other: `mpigen`, 0 for its steps, at least 2 for job
steps. Every other name starts `mpigen--`, which no plain one does. Among those, a hashed name
holds no '--' after its first eight characters (its readable part is runs of letters and digits
joined by one '-') and ends in `<hash>` or `<hash>-<S>` (10 hex digits); `mpigen--cluster` is not a
hash (it holds letters that are not hex digits), and `mpigen--cluster--...` holds '--'. Argo CD's
environment Applications keep the plain join of their one part as it always was (a part alone
needs no separator), which starts with a letter or digit after `mpigen-`. Hashes can still meet:
mpigen.emit.companions refuses two sources that get one name, naming both.

The folders of cluster-scoped objects sit in the output folder beside the environments' folders,
named `_` and their companion's name after `mpigen--`: an environment's folder is a label value,
which never starts with `_`. Their companion files (`kustomizations-_cluster.yaml`, the
Application's file by its name) cannot be an environment's for the same reason.
"""

from __future__ import annotations

import hashlib
import json
import re

from mpigen.kube.names import HASH_LENGTH, MAX_NAME, generated_name

PREFIX = "mpigen"
CLUSTER = f"{PREFIX}--cluster"  # the cluster-scoped objects' companion (Flux: one; Argo CD: its destination's)
_STEP = re.compile(r"[a-z0-9]+")


def application(env: str) -> str:
    """The Argo CD Application of an environment's folder (its name as it always was)."""
    return generated_name(PREFIX, (env,) if env else ())


def environment_kustomization(env: str) -> str:
    """The Flux Kustomization of an environment's whole folder."""
    return generated_name(PREFIX, (env,), last_raw=False) if env else PREFIX


def environment_step_kustomizations(env: str, steps: tuple[str, ...]) -> dict[str, str]:
    """The Flux Kustomization of each step of an environment's folder, by step."""
    base = generated_name(PREFIX, (env,), room=_room(steps), last_raw=False) if env else PREFIX
    return {step: f"{base}-{step}" for step in steps}


def job_step_kustomizations(env: str, namespace: str, job: str, steps: tuple[str, ...]) -> dict[str, str]:
    """The Flux Kustomization of each step of one job's folder, by step."""
    base = generated_name(PREFIX, tuple(part for part in (env, namespace, job) if part), room=_room(steps))
    return {step: f"{base}-{step}" for step in steps}


def cluster_kustomization() -> str:
    """The Flux Kustomization of the cluster-scoped objects of the Flux environments."""
    return CLUSTER


def cluster_application(destination: str) -> str:
    """The Argo CD Application of the cluster-scoped objects of the environments with this
    destination (an API server URL or an Argo CD cluster name: always hashed, as a URL is no label)."""
    digest = hashlib.sha256(json.dumps([PREFIX, "cluster", destination]).encode("utf-8")).hexdigest()[:HASH_LENGTH]
    head = f"{CLUSTER}--"
    readable = re.sub(r"[^a-z0-9]+", "-", destination.lower()).strip("-")
    readable = readable[:MAX_NAME - len(head) - 1 - HASH_LENGTH].strip("-")
    return f"{head}{readable}-{digest}" if readable else f"{head}{digest}"


def cluster_folder(companion: str) -> str:
    """The output's folder of the cluster-scoped objects a cluster companion applies."""
    return "_" + companion[len(f"{PREFIX}--"):]


def kustomizations_file(env: str) -> str:
    """The file of the Flux companion folder that holds an environment's Kustomizations (or,
    for a folder of cluster-scoped objects, its one)."""
    return f"kustomizations-{env}.yaml" if env else "kustomizations.yaml"


def application_file(name: str) -> str:
    """The file of the Argo CD companion folder that holds the Application `name`."""
    return f"application-{name}.yaml"


def _room(steps: tuple[str, ...]) -> int:
    """What the longest `-<step>` adds to a chain's base name; a step must hold no '-'."""
    for step in steps:
        if not _STEP.fullmatch(step):
            raise ValueError(f"a Flux step is a word of lowercase letters and digits, not {step!r}")
    return max(len(step) for step in steps) + 1
