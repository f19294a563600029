"""`mpigen import`, what a blueprint sets on both roles at once: the env, the pod
templates' labels and annotations (or, where the templates differ, each role's own), the
MPI containers' names, and the secondary networks. Where the MPIJob's two templates differ
and the blueprint can only carry one value for both: which one, and each difference, is
reported at its line.
"""

from __future__ import annotations

import re

from mpigen.compile.blueprint import LAUNCHER_CONTAINER, WORKER_CONTAINER
from mpigen.compile.environment import RENDEZVOUS_ENV
from mpigen.compile.launcher_env import OPENMPI5_ENV
from mpigen.compile.mpijob import V1ALPHA2, V2BETA1
from mpigen.compile.names import OPERATOR_LABEL_KEYS
from mpigen.kube.labels import MULTUS_NETWORKS, mpigens_own

# Label keys the v1alpha2 controller writes over the template's (role_labels), and the
# operator's keys a blueprint refuses (validate._check_reserved_metadata).
OPERATOR_POD_LABELS = ("group_name", "mpi_job_name", "mpi_role_type")
RESERVED_LABELS = OPERATOR_LABEL_KEYS
DEFAULT_CONTAINERS = {"Launcher": LAUNCHER_CONTAINER, "Worker": WORKER_CONTAINER}  # without mainContainer
# What mpigen writes into the launcher's env itself (in the MPIJob resource it renders): not the user's.
ADDED_ENV = {entry["name"]: entry["value"] for entry in OPENMPI5_ENV}


def read_env(r, part: dict) -> list[tuple[str, str, tuple]]:
    """(name, value, where) of each plain env entry; what else an entry says is reported."""
    out = []
    for index, entry in enumerate(part["env"]):
        loc = part["cloc"] + ("env", index)
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"]:
            r.refuse(loc, "an env entry needs a name")
            continue
        for key in entry:
            if key not in ("name", "value"):
                r.lost(loc + (key,), f"the env variable {entry['name']}'s {key} (a blueprint's env has plain "
                                     "values; spec.podTemplatePatch.<role>.container.envFrom takes whole "
                                     "ConfigMaps and Secrets)")
        if "valueFrom" in entry:
            continue
        value = entry.get("value", "")
        if not isinstance(value, str):
            r.refuse(loc + ("value",), "env values are strings; quote it")
            continue
        out.append((entry["name"], value, loc))
    return out


def template_metadata(r, metadata: dict, roles: list[dict]) -> None:
    """The templates' labels and annotations: a value both templates give (and the MPIJob's
    own, when it has the key) into the blueprint's metadata, which rendering puts on both pod
    templates (and, as the contract has it, on every object); any other into the
    role's spec.podTemplatePatch.<role>.metadata, which its pods alone get, over metadata's.
    A key of the MPIJob's own that one template leaves out reaches that template's pods too
    (reported)."""
    for kind in ("labels", "annotations"):
        blueprint = metadata.setdefault(kind, {})
        keys = sorted({k for part in roles for k in part[kind]})
        for key in keys:
            if mpigens_own(key):
                continue  # mpigen's own, from an earlier render
            if kind == "labels" and key in OPERATOR_POD_LABELS and r.api == V1ALPHA2:
                continue  # the controller writes its own value over the template's
            holders = [part for part in roles if key in part[kind]]
            if kind == "labels" and key in RESERVED_LABELS:
                for part in holders:
                    r.lost(part["loc"] + ("metadata", kind, key), f"the label {key}, a key the operator writes on "
                                                                  "its own objects")
                continue
            where = lambda part: part["loc"] + ("metadata", kind, key)  # noqa: E731
            values = {part[kind][key] for part in holders}
            if key not in blueprint and len(holders) == len(roles) and len(values) == 1:
                blueprint[key] = values.pop()
                r.came_from(("metadata", kind, key), where(holders[0]))
                continue
            for part in holders:
                if part[kind][key] != blueprint.get(key):
                    role = part["role"].lower()
                    part["patch"].setdefault("metadata", {}).setdefault(kind, {})[key] = part[kind][key]
                    r.came_from(("podTemplatePatch", role, "metadata", kind, key), where(part))
            if key in blueprint and len(holders) < len(roles):
                part = holders[0]
                other = "worker" if part["role"] == "Launcher" else "launcher"
                r.differs(where(part), f"a {kind[:-1]} of the {part['role'].lower()} template only, which the "
                                       f"MPIJob itself has too; a blueprint's metadata.{kind} reach every pod "
                                       f"template, so the {other}'s pods get it too")
        if not blueprint:
            del metadata[kind]


def container_names(r, spec: dict, launcher: dict, worker: dict, out: dict) -> None:
    """A blueprint names the MPI containers mpi-launcher and mpi-worker, or both
    spec.mainContainer (which, before v2beta1, also makes kubexec.sh exec --container it), or
    each spec.podTemplatePatch.<role>.containerName."""
    main = spec.get("mainContainer") if r.api != V2BETA1 else None
    names = {part["role"]: part["name"] for part in (launcher, worker)}
    if main is None and names == DEFAULT_CONTAINERS:
        return
    if main is None and names["Launcher"] == names["Worker"] and r.api == V2BETA1:
        main = names["Launcher"]  # no kubexec.sh: mainContainer only names them
    if main is None:  # each role's own name (kubexec.sh execs into the first container, as the operator's)
        for part in (launcher, worker):
            if part["name"] != DEFAULT_CONTAINERS[part["role"]]:
                part["patch"]["containerName"] = part["name"]
                r.came_from(("podTemplatePatch", part["role"].lower(), "containerName"), part["cloc"] + ("name",))
        return
    out["mainContainer"] = main
    r.came_from(("mainContainer",), ("spec", "mainContainer") if "mainContainer" in spec
                else launcher["cloc"] + ("name",))
    for part in (launcher, worker):
        wanted = main if main is not None else DEFAULT_CONTAINERS[part["role"]]
        if part["name"] != wanted:
            r.differs(part["cloc"] + ("name",), f"the {part['role'].lower()} container {part['name']!r} is renamed "
                                                f"{wanted!r}: a blueprint with spec.mainContainer names both MPI "
                                                "containers so")


def env(r, launcher: dict, worker: dict, out: dict, rank_env: bool) -> set[str]:
    """The blueprint's env is set on both roles, in its order: the launcher's entries,
    each one the workers have too, in the same order, then those the workers alone set
    (returned: the hand-written launch line does not forward them)."""
    entries = {}
    for part in (launcher, worker):
        kept = []
        for name, value, loc in read_env(r, part):
            if part is launcher and ADDED_ENV.get(name) == value:
                continue  # mpigen's own (it writes it into the MPIJob resource)
            if part is launcher and rank_env and name in RENDEZVOUS_ENV:
                continue  # mpigen's PyTorch/DeepSpeed preset sets these on the launcher
            kept.append((name, value, loc))
        entries[part["role"]] = kept
    env: dict[str, str] = {}
    for name, value, loc in entries["Launcher"]:
        if name in env:
            r.differs(loc, f"{name} is set twice; the imported env keeps the last value, once")
        env[name] = value
        r.came_from(("env", name), loc)
    on_launcher = set(env)
    workers_only = [(n, v, loc) for n, v, loc in entries["Worker"] if n not in on_launcher]
    for name, value, loc in workers_only:
        if name in env:
            continue  # set twice on the workers: the first is kept, the second reported below
        env[name] = value
        r.came_from(("env", name), loc)
        r.differs(loc, f"{name} is set on the workers only; imported into spec.env, which the launcher gets too "
                       f"({WORKER_ENV_FORWARDED})")
    entries["Worker"] = [e for e in entries["Worker"] if e not in workers_only or env[e[0]] != e[1]]
    ours = [(n, v) for n, v, _ in entries["Launcher"]]
    theirs = [(n, v) for n, v, _ in entries["Worker"]]
    if ours != theirs:
        _env_differences(r, entries, env, worker)
    if env:
        out["env"] = env
    return {name for name, _, _ in workers_only}


# How the ranks get spec.env (mpigen.compile.environment.forward_env), as import says it.
WORKER_ENV_FORWARDED = ("the workers keep it, so every rank still sees it; mpigen's own launch line also forwards "
                        "it from the launcher: `-x NAME` for Open MPI, and Intel MPI's and MPICH's Hydra pass the "
                        "launcher's whole environment")


def _env_differences(r, entries: dict, env: dict, worker: dict) -> None:
    reported = False
    for name, value, loc in entries["Worker"]:
        if env.get(name) != value:
            now = f"sets to {env[name]!r}" if name in env else "does not set"
            r.lost(loc, f"the workers' {name}={value!r}, which the launcher {now} (a blueprint's env is the same "
                        "on both)")
            reported = True
    names = {name for name, _, _ in entries["Worker"]}
    for name, _, loc in entries["Launcher"]:
        if name not in names:
            r.differs(loc, f"{name} is set on the launcher only; a blueprint cannot express that: its env is set "
                           "on both, so the imported workers get it too")
            reported = True
    if not reported:  # the same variables, in another order
        r.differs(worker["cloc"] + ("env",), "the workers' env lists the launcher's variables in another order; "
                                             "a blueprint cannot express that: its env is set on both in the "
                                             "launcher's order")


def networks(r, launcher: dict, worker: dict, out: dict) -> None:
    """The workers' Multus annotation, which rendering writes from spec.network."""
    value = worker["annotations"].get(MULTUS_NETWORKS)
    if value is None or MULTUS_NETWORKS in launcher["annotations"]:
        return
    names = value.split(",")
    if all(re.fullmatch(r"([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?", n) for n in names):
        out["network"] = {"secondaryNetworks": names}
        r.came_from(("network",), worker["loc"] + ("metadata", "annotations", MULTUS_NETWORKS))
        del worker["annotations"][MULTUS_NETWORKS]
