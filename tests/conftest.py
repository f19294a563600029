"""Shared helpers: build blueprints in memory and render them through the real pipeline."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import tests.support.properties  # noqa: F401  (the property tests' profile: fixed examples unless asked)
from tests.support.any_user import remove_any_user_install

ROOT = Path(__file__).resolve().parent.parent
BLUEPRINTS = ROOT / "blueprints"
GOLDEN = ROOT / "golden"


def example_blueprints() -> dict[str, dict]:
    """The examples by name, read from blueprints/*.yaml (in file order)."""
    import yaml

    out = {}
    for path in sorted(BLUEPRINTS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        out[data["metadata"]["name"]] = data
    return out


# The objects the operator creates for one job (the static target, shared/reference/
# mpi-operator.md 2.2), as (kind, suffix of the job name).
OPERATOR_OBJECTS = (("ConfigMap", "-config"), ("ServiceAccount", "-launcher"), ("Role", "-launcher"),
                    ("RoleBinding", "-launcher"), ("StatefulSet", "-worker"), ("Job", "-launcher"))


def extra_objects(blueprint: dict, target: str = "static") -> list[tuple[str, str]]:
    """The objects a blueprint gets besides the operator's usual six (static target) or its
    MPIJob (target mpijob), as (kind, suffix of the job name), from the blueprint's fields:
    - the PodGroup `<job>` of gang scheduling (spec.scheduling.gang), static target only:
      under target mpijob the operator creates it (mpi-operator.md 2.7, 4.8);
    - the ConfigMap `<job>-mpigen` holding rank-env.sh, for PyTorch and DeepSpeed started by
      mpigen's mpirun line (framework pytorch or deepspeed, no launcherCommand);
    - the ServiceAccount `<job>-identity` of a cloud identity (spec.serviceAccount.annotations)."""
    spec = blueprint["spec"]
    out = []
    if target == "static" and spec.get("scheduling", {}).get("gang") is not None:
        out.append(("PodGroup", ""))
    if spec.get("framework") in ("pytorch", "deepspeed") and spec.get("launcherCommand") is None:
        out.append(("ConfigMap", "-mpigen"))
    if spec.get("serviceAccount", {}).get("annotations"):
        out.append(("ServiceAccount", "-identity"))
    return out


def production_features(blueprint: dict) -> list[str]:
    """The production features (b523eda) a blueprint uses, as the fields that ask for them:
    sharedMemory, launcher (runAsWorker, waitForWorkers), network, placement affinity,
    onePodPerNode and priorityClassName, scheduling (gang, Kueue queue), security,
    imagePullSecrets, serviceAccount, the dataset sources csi, configMap and secret, a
    dataset's accessMode and download step, and the PyTorch and DeepSpeed presets (ranks
    started through rank-env.sh). Empty for a blueprint of the operator's own examples."""
    spec = blueprint["spec"]
    used = [key for key in ("sharedMemory", "launcher", "network", "scheduling", "security", "imagePullSecrets",
                            "serviceAccount") if key in spec]
    for role, placement in spec.get("placement", {}).items():
        used += [f"placement.{role}.{key}" for key in ("affinity", "onePodPerNode", "priorityClassName")
                 if key in placement]
    for index, dataset in enumerate(spec.get("datasets", [])):
        used += [f"datasets[{index}].{key}" for key in ("csi", "configMap", "secret", "accessMode", "download")
                 if key in dataset]
    if spec.get("framework") in ("pytorch", "deepspeed") and spec.get("launcherCommand") is None:
        used.append(f"framework: {spec['framework']}")
    return used


def job_objects(blueprint: dict) -> list[tuple[str, str]]:
    """Every object of one blueprint under the static target, as (kind, suffix of the job name)."""
    return [*OPERATOR_OBJECTS, *extra_objects(blueprint)]


def blueprint_text(name: str = "job", labels: dict | None = None, annotations: dict | None = None,
                   **spec) -> str:
    """A minimal valid blueprint as YAML text (JSON, which keeps key order), with spec
    fields overridden by keyword (None leaves a field out); `namespace`, `labels` and
    `annotations` go into metadata."""
    import json

    body = {"image": "example.com/train:1", "workers": 2, "command": ["python", "train.py"]}
    body.update(spec)
    body = {key: value for key, value in body.items() if value is not None}
    metadata = {"name": name}
    if "namespace" in body:
        metadata["namespace"] = body.pop("namespace")
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return json.dumps({"apiVersion": "mpigen.dev/v1alpha1", "kind": "MPIJobBlueprint",
                       "metadata": metadata, "spec": body}, indent=2) + "\n"


def render_text(text: str, path: str = "job.yaml", **options) -> list[dict]:
    """Objects rendered from a blueprint text, through load, validate, compile and render."""
    from mpigen.compile.blueprint import compile_blueprint
    from mpigen.load.parser import parse
    from mpigen.errors import InputError
    from mpigen.render.target import Options
    from mpigen.render.targets import RESERVED, render_job
    from mpigen.validate.document import validate_document

    objects = []
    for doc in parse(text, path):
        blueprint, diagnostics = validate_document(doc, RESERVED)
        if blueprint is None:
            raise InputError([d for d in diagnostics if d.severity == "error"])
        objects += render_job(compile_blueprint(blueprint), Options(**options))
    return objects


def by_kind(objects: list[dict]) -> dict[str, dict]:
    return {obj["kind"]: obj for obj in objects}


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


_SESSION_CACHES: dict = {}  # "folder": the suite's cache folder (this user's); uid -> that user's


@pytest.fixture(autouse=True, scope="session")
def _cache_folder(tmp_path_factory):
    """Runs of the suite keep their cache of incremental renders (mpigen.cache) in a folder of
    their own, never in the user's ~/.cache/mpigen (subprocesses inherit the variable)."""
    previous = os.environ.get("MPIGEN_CACHE_DIR")
    _SESSION_CACHES["folder"] = os.environ["MPIGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("mpigen-cache"))
    yield
    if previous is None:
        os.environ.pop("MPIGEN_CACHE_DIR", None)
    else:
        os.environ["MPIGEN_CACHE_DIR"] = previous
    for uid, folder in list(_SESSION_CACHES.items()):
        if uid != "folder":
            shutil.rmtree(folder, ignore_errors=True)
    _SESSION_CACHES.clear()


def environment_of(uid: int) -> dict[str, str]:
    """The environment of a run as the user `uid` (through setpriv): this one, but that the
    suite's cache folder, which is this user's and which mpigen does not use as anyone else
    (mpigen.cache.folder), is replaced by a folder of that user's own, in /tmp (which every
    user reaches), made once a session. A cache folder a test chose stays."""
    environment = dict(os.environ)
    if "folder" in _SESSION_CACHES and environment.get("MPIGEN_CACHE_DIR") == _SESSION_CACHES["folder"]:
        if uid not in _SESSION_CACHES:
            _SESSION_CACHES[uid] = tempfile.mkdtemp(prefix=f"mpigen-cache-{uid}-", dir="/tmp")
            os.chown(_SESSION_CACHES[uid], uid, uid)
        environment["MPIGEN_CACHE_DIR"] = _SESSION_CACHES[uid]
    return environment


@pytest.fixture(autouse=True, scope="session")
def _any_user_install_removed():
    """The copy of mpigen every user may run (tests/support/any_user.py), built by the first
    test that runs mpigen as another user, is removed when the session ends."""
    yield
    remove_any_user_install()


# --- the command-line harness: `mpigen ARGS` in a subprocess (run_mpigen) or in this process
# (the mpigen_in_process and cli fixtures) ---------------------------------------------------

# The command line as a user runs it (for subprocess.Popen, where a run is started, not awaited).
MPIGEN = (sys.executable, "-m", "mpigen")


def run_mpigen(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 60,
               prefix: tuple[str, ...] | list[str] = (), python: Path | None = None,
               **run) -> subprocess.CompletedProcess:
    """`mpigen ARGS` in a subprocess, its output captured (unless `stdout` or `stderr` is given).
    `prefix` is a command the run goes through (setpriv as another user, a shell closing the
    standard output), `python` another interpreter than this one (the copy every user may run,
    tests/support/any_user.py); further keywords go to subprocess.run (stdout, preexec_fn, text, check)."""
    if "stdout" not in run and "stderr" not in run:
        run["capture_output"] = True
    command = MPIGEN if python is None else (str(python), "-m", "mpigen")
    return subprocess.run([*prefix, *command, *args], cwd=cwd, env=env, timeout=timeout, **run)


@pytest.fixture
def kubectl():
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip("kubectl is not on PATH (CI has it)")
    return path


@dataclass
class InProcessRun:
    """The result of `mpigen ARGS` run in-process (see the mpigen fixture)."""

    returncode: int
    stdout: bytes
    stderr: str

    def lines(self, severity: str) -> list[str]:
        return [line for line in self.stderr.splitlines()
                if f": {severity}: " in line or line.startswith(f"{severity}: ")]

    def objects(self) -> list[dict]:
        import yaml

        return [o for o in yaml.safe_load_all(self.stdout.decode()) if o]


@pytest.fixture
def mpigen_in_process(capsysbinary, monkeypatch):
    """mpigen_in_process(*ARGS) -> InProcessRun: the CLI in this process, in the current
    folder (faster than a subprocess where the process boundary is not the point)."""
    from mpigen.cli.main import main

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


def pos(text, needle, sub=None, after=None) -> tuple[int, int]:
    """1-based (line, column) of `needle` in text (of `sub` inside it when given), searching
    after the first occurrence of `after` when given. `needle` must occur exactly once there,
    so a case can never silently point at the wrong spot. Works on str and bytes."""
    start = 0 if after is None else text.index(after) + len(after)
    assert text.count(needle, start) == 1, f"{needle!r} must occur exactly once in the case text"
    index = text.index(needle, start) + (needle.index(sub) if sub is not None else 0)
    newline = "\n" if isinstance(text, str) else b"\n"
    before = text[:index]
    return before.count(newline) + 1, index - (before.rfind(newline) + 1) + 1


# --- the input-writing helper: every file a test repository holds ----------------------------

def write(path, text: str) -> str:
    """Write text to path (a file of a test repository), making its folders; return the text."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text
