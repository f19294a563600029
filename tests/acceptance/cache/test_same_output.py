"""The cache never changes what a run gives: random edit sequences over a generated repository
(blueprints and overlays edited, added, removed and renamed, options changed, files of the
output folder changed by hand), each step run with the cache and with --no-cache in two
copies of the repository, give the same standard output, standard error, exit code and
output folder, byte for byte. What mpigen saw of the output folder is kept however recent
(RACY 0; a change by hand comes a clock tick later), so that later steps trust it."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from tests.support.properties import examples

from mpigen.cache import folders
from mpigen.cache.store import FORMAT
from mpigen.output.index import INDEX
from tests.support.cache_repository import OVERLAYS, VARIANTS, folder, run, write_repository

NAMES = ["job-a", "job-b", "job-c"]  # few, so that two files often name the same job
FILES = ["a.yaml", "b.yaml", "c.yml", "nested/d.yaml"]
# A render refuses a file of the output folder changed by hand; with --discard-edits it replaces it.
COMMANDS = [["render", "--stdout"], ["render"], ["render", "--discard-edits"], ["check"], ["validate"]]

document = st.tuples(st.sampled_from(NAMES), st.sampled_from(sorted(VARIANTS)),
                     st.sampled_from([None, "team-a"]))
write = st.tuples(st.just("write"), st.sampled_from(FILES), st.lists(document, min_size=1, max_size=2))
overlay = st.tuples(st.just("overlay"), st.sampled_from(sorted(OVERLAYS)), st.sampled_from(["patches", "presence"]))
config = st.tuples(st.just("config"), st.sampled_from([{}, {"target": "mpijob"}, {"target": "jobset"},
                                                      {"gitops": "argocd"}, {"gitops": "flux"}]))
namespace = st.tuples(st.just("namespace"))
tamper_edit = st.tuples(st.just("tamper"), st.integers(min_value=0, max_value=50), st.booleans())
# The changes that a key must see, drawn more often than those any key sees (a file's bytes).
edit = st.one_of(
    write, overlay, config, namespace, write, overlay, config, namespace,
    st.tuples(st.just("remove"), st.sampled_from(FILES)),
    st.tuples(st.just("rename"), st.sampled_from(FILES), st.sampled_from(FILES)),
    st.tuples(st.just("broken"), st.booleans()),
    tamper_edit, tamper_edit, tamper_edit, tamper_edit,
)
step = st.tuples(st.lists(edit, min_size=1, max_size=2), st.sampled_from(COMMANDS))


def apply(state: dict, change: tuple) -> None:
    kind, *args = change
    files, overlays = state["blueprints"], state["overlays"]
    if kind == "write":
        files[args[0]] = args[1]
    elif kind == "remove":
        files.pop(args[0], None)
    elif kind == "rename" and args[0] in files:
        files[args[1]] = files.pop(args[0])
    elif kind == "overlay":  # a patch more or less, or the overlay itself
        if args[1] == "patches":
            overlays[args[0]] = 1 - overlays.get(args[0], 0)
        elif overlays.pop(args[0], None) is None:
            overlays[args[0]] = 0
    elif kind == "config":
        state["config"] = args[0]
    elif kind == "broken":
        state["broken"] = args[0]
    elif kind == "namespace":  # Argo CD's destination namespace, set or unset
        state["namespace"] = None if state["namespace"] else "from-argocd"


def tamper(root: Path, change: tuple) -> None:
    """One file of the output folder (the index among them) changed by hand: a byte of it (its
    size and mtime kept), or removed."""
    _, which, remove = change
    found = sorted(p for p in (root / "out").rglob("*") if p.is_file() and (p.suffix == ".yaml" or p.name == INDEX)) \
        if (root / "out").is_dir() else []
    if not found:
        return
    path = found[which % len(found)]
    if remove:
        path.unlink()
        return
    status, data = path.stat(), path.read_bytes()
    path.write_bytes(data[:-2] + (b"X" if data[-2:-1] != b"X" else b"Y") + data[-1:])
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=2, max_size=5))
def test_edit_sequences_give_the_same_bytes_with_and_without_the_cache(steps, capsysbinary, monkeypatch):
    monkeypatch.setattr(folders, "RACY", 0)
    monkeypatch.delenv("ARGOCD_APP_NAMESPACE", raising=False)
    for name in ("ARGOCD_ENV_MPIGEN_OVERLAY", "ARGOCD_ENV_MPIGEN_GITOPS", "ARGOCD_ENV_MPIGEN_TARGET"):
        monkeypatch.delenv(name, raising=False)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        monkeypatch.setenv("MPIGEN_CACHE_DIR", str(tmp / "cache"))
        cached, uncached = tmp / "cached", tmp / "uncached"
        state = {"blueprints": {"a.yaml": [("job-a", "valid", None)], "b.yaml": [("job-b", "gpus", "team-a")]},
                 "overlays": {"dev": 1, "prod": 1}, "config": {},
                 "broken": False, "namespace": None}
        for changes, argv in [([], ["render"]), *steps]:  # the cache and the output folder filled first
            for change in changes:
                apply(state, change)
            time.sleep(0.02)  # a clock tick of the file system: a change by hand gets another ctime
            for root in (cached, uncached):
                write_repository(root, state)
                for change in changes:
                    if change[0] == "tamper":
                        tamper(root, change)
            for command in (argv, ["check"]):  # then check, which keeps what it saw of the folder
                with_cache = run(cached, command, state["namespace"], capsysbinary)
                without = run(uncached, [*command, "--no-cache"], state["namespace"], capsysbinary)
                assert with_cache == without, command
                assert folder(cached / "out") == folder(uncached / "out")
        assert any((tmp / "cache" / FORMAT).glob("*/*/*")) or not state["blueprints"]
