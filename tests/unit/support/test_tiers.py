"""The unit tier's rule (tests/support/tiers.py), applied by tests/conftest.py before a test's
fixtures are set up: a test under tests/unit that takes a fixture running the command line or a
process fails, naming the test's module and each such fixture; other tiers may take them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.support.paths import ROOT
from tests.support.tiers import unit_refusal, xdist_group

UNIT_MODULE = ROOT / "tests" / "unit" / "render" / "test_example.py"


def conftest_hook(request, name: str):
    """The hook of the suite's tests/conftest.py, as pytest registered it (test modules never import a conftest)."""
    [plugin] = [p for p in request.config.pluginmanager.get_plugins()
                if getattr(p, "__file__", None) == str(ROOT / "tests" / "conftest.py")]
    return getattr(plugin, name)


def test_a_unit_test_may_not_take_the_command_line_or_kubectl():
    refusal = unit_refusal(UNIT_MODULE, ["tmp_path", "cli", "mpigen_in_process", "monkeypatch"])
    assert refusal.startswith("tests/unit/render/test_example.py: a unit test calls mpigen's functions in this "
                              "process, and may not use `cli` (runs the command line), `mpigen_in_process` (runs "
                              "the command line): ")
    assert "`kubectl` (runs kubectl)" in unit_refusal(UNIT_MODULE, ["kubectl"])


def test_a_unit_test_of_functions_and_other_tiers_keep_the_rule():
    assert unit_refusal(UNIT_MODULE, ["tmp_path", "monkeypatch", "capsys"]) is None
    assert unit_refusal(ROOT / "tests" / "acceptance" / "test_cli.py", ["cli", "kubectl"]) is None
    assert unit_refusal(ROOT / "tests" / "system" / "test_e2e_mpi.py", ["mpigen_in_process"]) is None


def test_the_suite_fails_a_unit_test_that_takes_cli_before_its_fixtures(request):
    setup = conftest_hook(request, "pytest_runtest_setup")
    with pytest.raises(pytest.fail.Exception, match=r"test_example.py: .* may not use `cli`"):
        setup(SimpleNamespace(path=UNIT_MODULE, fixturenames=["cli", "mpigen_in_process", "tmp_path"]))
    setup(SimpleNamespace(path=UNIT_MODULE, fixturenames=["tmp_path"]))  # no refusal
    setup(SimpleNamespace(path=ROOT / "tests" / "acceptance" / "test_cli.py", fixturenames=["cli"]))


def test_the_tests_that_cannot_run_beside_each_other_share_a_group():
    assert xdist_group(ROOT / "tests" / "system" / "test_e2e_mpi.py") == "mpi"
    assert xdist_group(ROOT / "tests" / "acceptance" / "test_e2e_property.py") == "mpi"
    assert xdist_group(ROOT / "tests" / "system" / "tools" / "test_process_count_launchers.py") == "mpi"
    assert xdist_group(ROOT / "tests" / "system" / "install" / "test_wheel.py") == "release"
    assert xdist_group(ROOT / "tests" / "acceptance" / "cache" / "test_safe_cache.py") is None
