"""The Argo CD Config Management Plugin in docs/argocd/plugin.yaml, run as the repo server
runs it: the generate command in the application's folder, with Argo CD's environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from tests.support.any_user import AS_NOBODY, any_user_install
from tests.support.output_machine import NOBODY, chown_tree, need_root
from tests.support.paths import ROOT

PLUGIN = ROOT / "docs" / "argocd" / "plugin.yaml"


@pytest.fixture
def app(tmp_path):
    """An application folder: the example repository (blueprints, overlays, mpigen.yaml)."""
    for name in ("blueprints", "overlays"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "mpigen.yaml", tmp_path / "mpigen.yaml")
    return tmp_path


def generate(folder: Path, user: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess:
    """The plugin's generate command in `folder`; through `user` (setpriv as another user),
    the mpigen command its script ends with, run by the copy of mpigen every user may run
    (tests/support/any_user.py: this interpreter and this clone may lie in private folders)."""
    plugin = yaml.safe_load(PLUGIN.read_text())
    command = plugin["spec"]["generate"]["command"] + plugin["spec"]["generate"]["args"]
    if user:
        (args,) = re.findall(r"^exec mpigen (.*)$", command[-1], re.M)
        command = [*user, str(any_user_install().python), "-m", "mpigen", *args.split()]
    environ = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               "ARGOCD_APP_NAME": "training-prod", "ARGOCD_APP_NAMESPACE": "ml-team", **env}
    return subprocess.run(command, cwd=folder, env=environ, capture_output=True, text=True, timeout=120)


def test_the_plugin_is_a_config_management_plugin_v2():
    plugin = yaml.safe_load(PLUGIN.read_text())
    assert plugin["apiVersion"] == "argoproj.io/v1alpha1" and plugin["kind"] == "ConfigManagementPlugin"
    assert set(plugin["spec"]) <= {"version", "init", "generate", "discover", "parameters", "preserveFileMode",
                                   "provideGitCreds"}
    assert plugin["spec"]["discover"] == {"fileName": "./mpigen.yaml"}


def test_generate_prints_only_manifests_of_the_chosen_overlay(app):
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod")
    assert done.returncode == 0, done.stderr
    objects = list(yaml.safe_load_all(done.stdout))
    assert objects and all({"apiVersion", "kind", "metadata"} <= set(o) for o in objects)
    # prod sets the argocd profile: sync waves, names with the run identity.
    assert all("argocd.argoproj.io/sync-wave" in o["metadata"]["annotations"] for o in objects)
    launchers = [o for o in objects if o["kind"] == "Job"]
    # One workload for each example blueprint (prod renders them all), read from blueprints/: a
    # launcher Job, or the JobSet of the job mpigen.yaml's targets rule renders with jobset.
    examples = {yaml.safe_load(p.read_text())["metadata"]["name"] for p in (app / "blueprints").glob("*.yaml")}
    workloads = [o for o in objects if o["kind"] in ("Job", "JobSet")]
    assert {o["metadata"]["labels"]["mpigen.dev/job"] for o in workloads} == examples
    # A blueprint without a namespace goes to the Application's destination namespace.
    mnist = next(o for o in launchers if o["metadata"]["labels"]["mpigen.dev/job"] == "tensorflow-mnist")
    assert mnist["metadata"]["namespace"] == "ml-team"


def test_plugin_environment_chooses_the_profile(app):
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="dev", ARGOCD_ENV_MPIGEN_GITOPS="flux")
    assert done.returncode == 0, done.stderr
    kinds = {o["kind"]: o for o in yaml.safe_load_all(done.stdout)}
    assert kinds["StatefulSet"]["metadata"]["annotations"]["kustomize.toolkit.fluxcd.io/ssa"] == "IfNotPresent"


def test_a_failing_blueprint_exits_non_zero_with_nothing_on_stdout(app):
    bad = app / "blueprints" / "intel-pi.yaml"
    bad.write_text(bad.read_text().replace("workers: 2", "workers: 0"))
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod")
    assert done.returncode == 2 and done.stdout == ""
    assert "blueprints/intel-pi.yaml:" in done.stderr and "spec.workers" in done.stderr


def test_no_blueprint_is_a_failure_not_an_empty_render(app):
    shutil.rmtree(app / "blueprints")
    (app / "blueprints").mkdir()
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod")
    assert done.returncode == 2 and done.stdout == ""


def test_a_bad_setting_is_an_error(app):
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod", ARGOCD_ENV_MPIGEN_GITOPS="helm")
    assert done.returncode == 2 and done.stdout == "" and "ARGOCD_ENV_MPIGEN_GITOPS" in done.stderr
    # A setting is in no file: a plain `error:` line that names it, what exists, and the nearest.
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod", ARGOCD_ENV_MPIGEN_TARGET="jobsets")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("error: ARGOCD_ENV_MPIGEN_TARGET='jobsets' is not one of static, mpijob, jobset, trainjob; "
                           "did you mean 'jobset'?\n")
    done = generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="staging")
    assert done.returncode == 2 and done.stdout == "" and "staging" in done.stderr


@pytest.fixture
def checkout(app):
    """The application copied where user nobody may reach it: what the sidecar unpacks."""
    need_root()
    folder = Path(tempfile.mkdtemp(prefix="mpigen-cmp-", dir="/tmp"))
    folder.chmod(0o755)
    shutil.copytree(app, folder / "app")
    (folder / "app").chmod(0o755)  # pytest's tmp_path, copied with its mode, is root's alone
    yield folder / "app"
    shutil.rmtree(folder)


def test_the_sidecar_s_user_renders_the_checkout_it_unpacked(app, checkout):
    """The sidecar's server unpacks the repository as its own user, the user the generate
    command runs as: that user's mpigen.yaml is used, as any user's own is."""
    chown_tree(checkout, NOBODY, NOBODY)
    done = generate(checkout, AS_NOBODY, ARGOCD_ENV_MPIGEN_OVERLAY="prod")
    assert done.returncode == 0, done.stderr
    assert done.stdout == generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod").stdout


def test_a_checkout_of_another_user_needs_the_sidecar_s_word(app, checkout):
    """A checkout another user made (root's here) stops the generate command, with nothing on
    stdout, until the sidecar's env names its folder (docs/gitops.md)."""
    done = generate(checkout, AS_NOBODY, ARGOCD_ENV_MPIGEN_OVERLAY="prod")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {checkout}/mpigen.yaml: owned by root (uid 0), not by you (nobody): ")
    done = generate(checkout, AS_NOBODY, ARGOCD_ENV_MPIGEN_OVERLAY="prod", MPIGEN_SAFE_DIRECTORIES=str(checkout))
    assert done.returncode == 0, done.stderr
    assert done.stdout == generate(app, ARGOCD_ENV_MPIGEN_OVERLAY="prod").stdout
