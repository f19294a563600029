"""The suite's fixtures: the command line in this process (mpigen_in_process, cli), kubectl, the YAML
parsers in turn (loader), the worker pool in small slices (pool_of_small_slices), and
what every session and end-to-end test cleans up; and the unit tier's rule (tests/support/tiers.py):
a test under tests/unit that takes a fixture running the command line or a process fails at its
setup. What tests share besides fixtures lives in tests/support/ (test modules never import each
other, nor a conftest)."""

from __future__ import annotations

import glob
import os
import shutil

import pytest
import yaml

import tests.support.properties  # noqa: F401  (the property tests' profile: fixed examples unless asked)
from mpigen.cli.main import main
from mpigen.pipeline import pool
from tests.support.any_user import remove_any_user_install
from tests.support.cache_folders import SESSION_CACHES
from tests.support.command_line import InProcessRun
from tests.support.tiers import is_unit, unit_refusal, xdist_group


def pytest_collection_modifyitems(items):
    """The tests that may not run beside each other on two workers of pytest-xdist share a
    group (tests/support/tiers.py), which `--dist loadgroup` runs on one worker."""
    for item in items:
        group = xdist_group(item.path)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before any fixture is set up: a unit test may not take one that runs the command line or a process."""
    refusal = unit_refusal(item.path, getattr(item, "fixturenames", ()))
    if refusal:
        pytest.fail(refusal, pytrace=False)


@pytest.fixture(autouse=True)
def _unit_tests_render_in_this_process(request, monkeypatch):
    """A unit test's render stays in this process whatever its size: no pool of workers is forked
    (mpigen.pipeline.pool; the output is the same)."""
    if is_unit(request.path):
        monkeypatch.setenv("MPIGEN_PROCESSES", "1")


@pytest.fixture(autouse=True)
def no_mpi_session_folders_left(request):
    """The session folders (/tmp/ompi.<pid>) that an end-to-end test's MPI runs leave behind when
    the pretend cluster stops them, removed after the test: a later run as another user whose
    mpirun gets the same pid could not create its own ("PMIx ... unable to create the desired
    directory: Permission denied")."""
    if not request.module.__name__.rsplit(".", 1)[-1].startswith("test_e2e"):
        yield
        return
    before = set(glob.glob("/tmp/ompi.*"))
    yield
    for path in set(glob.glob("/tmp/ompi.*")) - before:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _cache_folder(tmp_path_factory):
    """Runs of the suite keep their cache of incremental renders (mpigen.cache) in a folder of
    their own, never in the user's ~/.cache/mpigen (subprocesses inherit the variable)."""
    previous = os.environ.get("MPIGEN_CACHE_DIR")
    SESSION_CACHES["folder"] = os.environ["MPIGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("mpigen-cache"))
    yield
    if previous is None:
        os.environ.pop("MPIGEN_CACHE_DIR", None)
    else:
        os.environ["MPIGEN_CACHE_DIR"] = previous
    for uid, folder in list(SESSION_CACHES.items()):
        if uid != "folder":
            shutil.rmtree(folder, ignore_errors=True)
    SESSION_CACHES.clear()


@pytest.fixture(autouse=True, scope="session")
def _any_user_install_removed():
    """The copy of mpigen every user may run (tests/support/any_user.py), built by the first
    test that runs mpigen as another user, is removed when the session ends."""
    yield
    remove_any_user_install()


@pytest.fixture
def kubectl():
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not on PATH (CI has it)")
    return path


@pytest.fixture
def mpigen_in_process(capsysbinary, monkeypatch):
    """mpigen_in_process(*ARGS) -> InProcessRun: the CLI in this process, in the current
    folder (faster than a subprocess where the process boundary is not the point)."""
    monkeypatch.delenv("MPIGEN_DEBUG", raising=False)

    def run(*args: str) -> InProcessRun:
        capsysbinary.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code
        out, err = capsysbinary.readouterr()
        return InProcessRun(code, out, err.decode("utf-8"))

    return run


@pytest.fixture
def cli(mpigen_in_process, monkeypatch, tmp_path):
    """cli(*ARGS) -> InProcessRun: `mpigen ARGS` in-process, in the test's own folder (tmp_path)."""
    monkeypatch.chdir(tmp_path)
    return mpigen_in_process


@pytest.fixture(params=["c", "pure"])
def loader(request, monkeypatch):
    """Run a test with libyaml's parser and again with PyYAML's pure-Python one."""
    if request.param == "c":
        if not hasattr(yaml, "CSafeLoader"):
            pytest.skip("PyYAML is built without libyaml")
    else:
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    return request.param


@pytest.fixture
def pool_of_small_slices(monkeypatch):
    """The worker pool (mpigen.pipeline.pool) as a machine of several cores runs it, in slices of
    7, whatever MPIGEN_PROCESSES the run was given; skipped on one core, where it works serially."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the pool works serially whatever the size")
    monkeypatch.delenv("MPIGEN_PROCESSES", raising=False)
    monkeypatch.setattr(pool, "MAX_SLICE", 7)
