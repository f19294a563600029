"""Start-up loads only what a command uses (docs/architecture.md, the command table): `mpigen
--help` and `--version` load neither pydantic nor jinja2 nor any stage of the compiler, and one
blueprint rendered to standard output loads none of the optional libraries (nor Grafana's
dashboard builders, which only an environment with a dashboard loads, nor, where no environment
is monitored, mpigen.monitoring's alerts and dashboard), the review
commands, the process pool or the progress bar. Checked on the modules a fresh interpreter
holds when the command has run (`python -X importtime` in bench/ shows the times). The command's
module is imported without garbage collection, and what that made is then frozen."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.paths import ROOT

_RUN = ("import sys\n"
        "from mpigen.cli.main import main\n"
        "try:\n"
        "    code = main(sys.argv[1:])\n"
        "except SystemExit as exit:\n"
        "    code = exit.code\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
        "sys.exit(code)\n")


def loaded(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _RUN, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


def tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_load_no_model_no_template_and_no_stage(argv):
    modules = loaded(*argv)
    assert not tops(modules) & {"pydantic", "pydantic_core", "jinja2", "yaml", "multiprocessing"}
    stages = {"mpigen.formats", "mpigen.load", "mpigen.validate", "mpigen.compile", "mpigen.render",
              "mpigen.emit", "mpigen.pipeline", "mpigen.project", "mpigen.output", "mpigen.review"}
    assert not modules & stages


def test_one_blueprint_to_stdout_loads_only_the_render_path():
    modules = loaded("render", "blueprints/mpich-pi.yaml", "--stdout")
    assert {"mpigen.pipeline", "pydantic", "jinja2"} <= modules  # it did render
    assert not tops(modules) & {"kubernetes", "kubernetes_validate", "jsonschema", "urllib3", "tqdm", "ruamel",
                                "concurrent", "multiprocessing", "shtab", "grafana_foundation_sdk", "difflib"}
    assert not {name for name in modules if name.startswith("mpigen.review")}
    # this repository's mpigen.yaml monitors nothing: no alerts, no dashboard code (mpigen.pipeline.assembly)
    assert not {name for name in modules if name.startswith("mpigen.monitoring.")}
    assert "mpigen.render.mpijob.crd" not in modules  # the MPIJob CRD's models: only --with-crd builds them


def test_the_mpijob_target_loads_its_crd_only_with_crd():
    assert "mpigen.render.mpijob.crd" not in loaded("render", "blueprints/mpich-pi.yaml", "--stdout", "--target",
                                                     "mpijob")
    assert "mpigen.render.mpijob.crd" in loaded("render", "blueprints/mpich-pi.yaml", "--stdout", "--target", "mpijob",
                                                 "--with-crd")



@pytest.mark.parametrize("enabled", [True, False])
def test_the_command_is_imported_without_garbage_collection_and_set_aside(enabled):
    """mpigen.cli.main.imported: no collection runs while the command's module is imported,
    what importing made is then frozen (gc.freeze), and the collector is left as it was found."""
    script = ("import gc, sys\n"
              + ("" if enabled else "gc.disable()\n")
              + "from mpigen.cli.main import parse\n"
              "collections = []\n"
              "gc.callbacks.append(lambda phase, info: collections.append(phase))\n"
              "parse(sys.argv[1:])\n"
              "print(len(collections), gc.isenabled(), gc.get_freeze_count() > 10000)\n")
    done = subprocess.run([sys.executable, "-c", script, "render", "blueprints/mpich-pi.yaml", "--stdout"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", str(enabled), "True"]
