"""Invalid input: every class of bad blueprint is refused the way the contract says.

For each class the real CLI runs in a subprocess, as `validate PATH`, `render PATH -o out`
and `render PATH --stdout`, and each run must:
- exit with code 2;
- print `PATH:LINE:COLUMN: error: MESSAGE` on stderr for every problem (and no other
  error), with the path as given on the command line, the 1-based line and column of the
  offending key (unknown/duplicate/bad map keys), value (wrong values) or parent key
  (missing keys), and a message that names the field and, where sensible, the fix;
- print no Python traceback and nothing on stdout;
- stay within MEMORY_LIMIT of address space (RLIMIT_AS), so an alias bomb, deep nesting or
  a huge file is refused in bounded memory, and within a hang guard of RUN_TIMEOUT
  (no timing assertion: the project measures speed in bench/, not in tests);
- leave the working folder byte for byte as it was, in particular the -o folder, which
  holds a README.md and a previous render of blueprints/tensorflow-mnist.yaml.

Expected positions are computed from the YAML text of each case (see `pos`), never typed
in by hand. The three commands of one case run concurrently so that the file stays fast
on a 2-core CI machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import MPIGEN, pos, run_mpigen

REPO = Path(__file__).resolve().parents[2]
MNIST = REPO / "blueprints" / "tensorflow-mnist.yaml"

MODES = {
    "validate": lambda paths: ["validate", *paths],
    "render -o": lambda paths: ["render", *paths, "-o", "out"],
    "render --stdout": lambda paths: ["render", *paths, "--stdout"],
}
ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): error: (?P<message>.+)$")
# A problem of a whole path has no position: `error: PATH: MESSAGE` (line and column 0 here).
PATH_ERROR_LINE = re.compile(r"^error: (?P<path>[^:]+): (?P<message>.+)$")
RUN_TIMEOUT = 60
BOMB_TIMEOUT = 10
MEMORY_LIMIT = 768 * 1024 * 1024  # address space; a whole render of the examples fits in it


# --- helpers ----------------------------------------------------------------------------



@dataclass(frozen=True)
class Outcome:
    mode: str
    returncode: int
    stdout: bytes
    stderr: str


def env() -> dict[str, str]:
    environ = dict(os.environ)
    environ.pop("MPIGEN_DEBUG", None)  # would turn internal errors into tracebacks on purpose
    return environ


def bounded_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_modes(cwd: Path, paths, modes=tuple(MODES), timeout: float = RUN_TIMEOUT) -> list[Outcome]:
    """Run `python -m mpigen` once per mode, concurrently, in cwd, in bounded memory."""
    procs = [
        (mode, subprocess.Popen([*MPIGEN, *MODES[mode](list(paths))], cwd=cwd, env=env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=bounded_memory))
        for mode in modes
    ]
    outcomes = []
    try:
        for mode, proc in procs:
            try:
                stdout, stderr = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                pytest.fail(f"mpigen {mode} did not finish within {timeout} s")
            outcomes.append(Outcome(mode, proc.returncode, stdout, stderr.decode("utf-8", "replace")))
    finally:
        for _, proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return outcomes


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root (hidden ones too) with its type and, for files, its bytes."""
    state: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[rel] = ("symlink", os.readlink(path))
            elif path.is_dir():
                state[rel] = ("dir",)
            else:
                state[rel] = ("file", path.read_bytes())
    return state


def check_refused(outcome: Outcome, expected) -> None:
    """Exit 2, exactly the expected error lines (positions in file order), no traceback,
    nothing on stdout. `expected` holds (path, line, column, message substrings)."""
    where = f"mpigen {outcome.mode}; stderr was:\n{outcome.stderr}"
    assert "Traceback" not in outcome.stderr, where
    assert b"Traceback" not in outcome.stdout, where
    assert outcome.returncode == 2, where
    assert outcome.stdout == b"", f"{where}\nstdout was:\n{outcome.stdout[:2000]!r}"
    errors = []
    for line in outcome.stderr.splitlines():
        if line.startswith("error: "):
            match = PATH_ERROR_LINE.match(line)
            assert match, f"error line not of the form error: PATH: MESSAGE: {line!r}\n{where}"
            errors.append((match["path"], 0, 0, match["message"]))
        elif ": error: " in line:
            match = ERROR_LINE.match(line)
            assert match, f"error line not of the form PATH:LINE:COLUMN: error: MESSAGE: {line!r}\n{where}"
            errors.append((match["path"], int(match["line"]), int(match["column"]), match["message"]))
    assert [e[:3] for e in errors] == [e[:3] for e in expected], where
    unused = list(errors)
    for path, line, column, needles in expected:
        fits = [e for e in unused if e[:3] == (path, line, column) and all(n in e[3] for n in needles)]
        assert fits, f"no error at {path}:{line}:{column} mentions all of {needles!r}\n{where}"
        unused.remove(fits[0])


# --- cases --------------------------------------------------------------------------------

BASE = textwrap.dedent("""\
    apiVersion: mpigen.dev/v1alpha1
    kind: MPIJobBlueprint
    metadata:
      name: demo
      labels:
        team: vision
    spec:
      framework: horovod
      image: horovod/horovod:0.28.1
      workers: 4
      gpusPerWorker: 1
      command: [python, /examples/train.py]
      env:
        NCCL_DEBUG: INFO
      resources:
        worker: {cpu: "2", memory: 4Gi}
      datasets:
        - name: imagenet
          mountPath: /data/imagenet
          pvc: imagenet-claim
      runPolicy:
        backoffLimit: 3
    """)


def variant(*edits: tuple[str, str], text: str = BASE) -> str:
    """BASE with each (old, new) replacement applied; `old` must occur exactly once."""
    for old, new in edits:
        assert text.count(old) == 1, f"{old!r} must occur exactly once"
        text = text.replace(old, new)
    return text


def add_dataset(item: str) -> str:
    """BASE with a second dataset list item (given dedented) after the first."""
    return variant(("      pvc: imagenet-claim\n",
                    "      pvc: imagenet-claim\n" + textwrap.indent(textwrap.dedent(item), "    ")))


@dataclass(frozen=True)
class Case:
    files: dict          # relative path -> text (str) or raw bytes
    expected: tuple      # ((path, line, column, (message substrings, ...)), ...) in file order
    args: tuple = ("bad.yaml",)
    dirs: tuple = ()     # empty folders to create
    timeout: float = RUN_TIMEOUT


def err(text, needle, sub=None, *, msg, path="bad.yaml", after=None):
    return (path, *pos(text, needle, sub, after), tuple(msg))


def single(text, needle, sub=None, *, msg, path="bad.yaml", after=None, **extra) -> Case:
    """One file with one problem, at `needle` (or at `sub` inside it) in text."""
    return Case({path: text}, (err(text, needle, sub, msg=msg, path=path, after=after),), args=(path,), **extra)


def param(case_id: str, case: Case, marks=()):
    return pytest.param(case, id=case_id, marks=list(marks))


def long_name(length: int, workers: int) -> str:
    return variant(("  name: demo\n", f"  name: {'a' * length}\n"), ("  workers: 4\n", f"  workers: {workers}\n"))


DEPLOYMENT = textwrap.dedent("""\
    # A plain Kubernetes Deployment, not a blueprint.
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      replicas: 2
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
            - name: web
              image: nginx:1.27
    """)

# The classic "billion laughs": 9 levels of 9 aliases, 9**9 strings once expanded.
ALIAS_BOMB = textwrap.dedent("""\
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    """)

BINARY = BASE.encode().replace(b"name: demo", b"name: de\x00mo")
LATIN1 = variant(("  image: horovod/horovod:0.28.1\n",
                  "  image: horovod/horovod:0.28.1  # built by Jos\xe9\n")).encode("latin-1")
TWO_DOCUMENTS = BASE + "---\n" + BASE
NAMESPACED = variant(("  name: demo\n", "  name: demo\n  namespace: ml-team\n"))

_yaml_syntax = variant(("  image: horovod/horovod:0.28.1\n", "  image: horovod/horovod: 0.28.1\n"))
_tab = variant(("  workers: 4\n", "\tworkers: 4\n"))
_dup_top = variant(("  name: demo\n", "  name: demo\n  name: demo2\n"))
_dup_item = variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      pvc: other-claim\n"))
_no_env = variant(("  env:\n    NCCL_DEBUG: INFO\n", "  env:\n"))
_no_source = variant(("      pvc: imagenet-claim\n", ""))
_two_sources = variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      hostPath: /mnt/imagenet\n"))
_same_name = add_dataset("""\
    - name: imagenet
      mountPath: /data/other
      pvc: other-claim
    """)
_same_mount = add_dataset("""\
    - name: other
      mountPath: /data/imagenet
      pvc: other-claim
    """)

CASES = [
    # YAML syntax
    param("yaml-syntax-error", single(_yaml_syntax, "horovod/horovod: 0.28.1", ": 0.28.1",
                                      msg=["invalid YAML", "mapping values are not allowed"])),
    param("yaml-tab-indent", single(_tab, "\tworkers", msg=["invalid YAML"])),
    # duplicate keys
    param("duplicate-key", single(_dup_top, "name: demo2", msg=["duplicate key 'name'", "line 4", "keep one"])),
    param("duplicate-key-in-dataset", single(_dup_item, "pvc: other-claim", msg=["duplicate key 'pvc'", "keep one"])),
    # unknown keys
    param("unknown-key-top-level", single(variant(("spec:\n", "status: {}\nspec:\n")), "status:",
                                          msg=["unknown key 'status'", "allowed keys"])),
    param("unknown-key-spec", single(variant(("  gpusPerWorker: 1\n", "  gpuPerWorker: 1\n")), "gpuPerWorker",
                                     msg=["spec: unknown key 'gpuPerWorker'", "did you mean 'gpusPerWorker'"])),
    param("unknown-key-spec.resources.wrker",
          single(variant(("    worker: {cpu", "    wrker: {cpu")), "wrker:",
                 msg=["spec.resources: unknown key 'wrker'", "did you mean 'worker'"])),
    param("unknown-key-in-dataset-item",
          single(variant(("      pvc: imagenet-claim\n", "      pvc: imagenet-claim\n      size: 10Gi\n")), "size:",
                 msg=["spec.datasets[0]: unknown key 'size'", "allowed keys", "mountPath"])),
    # wrong types
    param("wrong-type-workers-string", single(variant(("workers: 4", 'workers: "4"')), 'workers: "4"', '"4"',
                                              msg=["spec.workers", "expected an integer", "'4'"])),
    param("wrong-type-env-value-int", single(variant(("NCCL_DEBUG: INFO", "NCCL_DEBUG: 90")), "NCCL_DEBUG: 90", "90",
                                             msg=["spec.env.NCCL_DEBUG", "expected a string", "quotes"])),
    param("wrong-type-command-string",
          single(variant(("command: [python, /examples/train.py]", "command: python /examples/train.py")),
                 "command: python", "python", msg=["spec.command", "expected a list"])),
    param("wrong-type-command-item-int",
          single(variant(("command: [python, /examples/train.py]", "command: [python, /examples/train.py, --epochs, 90]")),
                 "--epochs, 90]", "90", msg=["spec.command[3]", "expected a string", "quotes"])),
    param("wrong-type-env-empty", single(_no_env, "  env:", "env", msg=["spec.env", "expected a mapping"])),
    # out of range
    param("range-workers-0", single(variant(("workers: 4", "workers: 0")), "workers: 0", "0",
                                    msg=["spec.workers", ">= 1"])),
    param("range-gpusPerWorker-negative", single(variant(("gpusPerWorker: 1", "gpusPerWorker: -1")),
                                                 "gpusPerWorker: -1", "-1", msg=["spec.gpusPerWorker", ">= 0"])),
    param("range-backoffLimit-negative", single(variant(("backoffLimit: 3", "backoffLimit: -1")),
                                                "backoffLimit: -1", "-1", msg=["spec.runPolicy.backoffLimit", ">= 0"])),
    # names
    *[param(f"name-not-dns1035-{name}", single(variant(("name: demo", f"name: {name}")), f"name: {name}", name,
                                               msg=["metadata.name", f"'{name}'", "DNS-1035", "lowercase"]))
      for name in ("Resnet", "1abc", "a_b")],
    param("name-worker-pod-64-chars", single(long_name(55, 4), "a" * 55, msg=["metadata.name", "63", "at most 54"])),
    param("name-worker-pod-64-chars-11-workers",
          single(long_name(54, 11), "a" * 54, msg=["metadata.name", "63", "at most 53"])),
    # datasets
    param("dataset-without-source", single(_no_source, "- name: imagenet", "name",
                                           msg=["spec.datasets[0]", "exactly one source", "none"])),
    param("dataset-with-two-sources", single(_two_sources, "- name: imagenet", "name",
                                             msg=["spec.datasets[0]", "exactly one source", "pvc, hostPath"])),
    # files that are not blueprints, or cannot be read
    param("kubernetes-deployment-named", single(DEPLOYMENT, "kind: Deployment", "Deployment", path="deployment.yaml",
                                                msg=["not a blueprint", "kind: MPIJobBlueprint"])),
    # Unreadable files and folders: tests/acceptance/test_inputs.py, as a user who cannot read them.
    param("path-does-not-exist", Case({}, (("missing.yaml", 0, 0, ("no such file",)),), args=("missing.yaml",))),
    param("empty-folder", Case({}, (("empty", 0, 0, ("no blueprint found", "MPIJobBlueprint")),),
                               args=("empty",), dirs=("empty",))),
    param("folder-without-blueprints",
          Case({"manifests/deployment.yaml": DEPLOYMENT, "manifests/README.md": "# manifests\n"},
               (("manifests", 0, 0, ("no blueprint found", "MPIJobBlueprint")),), args=("manifests",))),
    param("binary-file", single(BINARY, b"de\x00mo", b"\x00", msg=["binary file", "NUL", "UTF-8 YAML"])),
    param("not-utf8", single(LATIN1, b"Jos\xe9", b"\xe9", msg=["not valid UTF-8", "save it as UTF-8"])),
    param("alias-bomb", single(ALIAS_BOMB, "[*a,", "*a", path="bomb.yaml", msg=["alias", "*a"],
                               timeout=BOMB_TIMEOUT)),
    # missing required keys: reported at the parent key
    param("missing-metadata.name", single(variant(("  name: demo\n", "")), "metadata:",
                                          msg=["metadata", "required key 'name'"])),
    param("missing-spec.image", single(variant(("  image: horovod/horovod:0.28.1\n", "")), "spec:",
                                       msg=["spec", "required key 'image'"])),
    param("missing-spec.workers", single(variant(("  workers: 4\n", "")), "spec:",
                                         msg=["spec", "required key 'workers'"])),
    param("missing-spec.command", single(variant(("  command: [python, /examples/train.py]\n", "")), "spec:",
                                         msg=["spec", "required key 'command'", "launcherCommand"])),
    # enums
    param("enum-framework", single(variant(("framework: horovod", "framework: pytorchh")), "pytorchh",
                                   msg=["spec.framework", "'pytorchh'", "'pytorch'"])),
    param("enum-mpiImplementation",
          single(variant(("  framework: horovod\n", "  framework: horovod\n  mpiImplementation: openmpi\n")),
                 "openmpi", msg=["spec.mpiImplementation", "'openmpi'", "'OpenMPI'"])),
    # reserved names
    param("reserved-label-app", single(variant(("    team: vision", "    app: vision")), "app: vision", "app",
                                       msg=["metadata.labels", "'app'", "choose another key"])),
    param("reserved-volume-name", single(variant(("- name: imagenet", "- name: mpi-job-config")), "mpi-job-config",
                                         msg=["spec.datasets[0].name", "mpi-job-config", "choose another name"])),
    param("reserved-mount-path", single(variant(("mountPath: /data/imagenet", "mountPath: /etc/mpi")), "/etc/mpi",
                                        msg=["spec.datasets[0].mountPath", "/etc/mpi", "choose another path"])),
    # clashes
    param("duplicate-dataset-name", single(_same_name, "name: imagenet\n      mountPath: /data/other", "imagenet",
                                           msg=["spec.datasets[1].name", "'imagenet'", "spec.datasets[0]", "unique"])),
    param("duplicate-dataset-mountPath",
          single(_same_mount, "mountPath: /data/imagenet\n      pvc: other-claim", "/data/imagenet",
                 msg=["spec.datasets[1].mountPath", "/data/imagenet", "spec.datasets[0]", "unique"])),
    param("duplicate-job-in-one-file",
          single(TWO_DOCUMENTS, "name: demo", "demo", after="---\n",
                 msg=["default/demo", "already defined at bad.yaml:{}:{}".format(*pos(BASE, "name: demo", "demo"))])),
    param("duplicate-job-in-two-files",
          Case({"a.yaml": NAMESPACED, "b.yaml": NAMESPACED},
               (err(NAMESPACED, "name: demo", "demo", path="b.yaml",
                    msg=["ml-team/demo", "already defined at a.yaml:{}:{}".format(*pos(NAMESPACED, "name: demo", "demo")),
                         "unique"]),),
               args=("a.yaml", "b.yaml"))),
    # YAML 1.1 surprises and tags
    param("yaml11-boolean-key", single(variant(("    NCCL_DEBUG: INFO", "    on: enabled")), "on: enabled", "on",
                                       msg=["'on'", "quote it"])),
    param("custom-tag", single(variant(("image: horovod", "image: !env horovod")), "!env",
                               msg=["'!env'", "not supported"])),
]


@pytest.fixture(scope="session")
def previous_render(tmp_path_factory) -> Path:
    """A folder as a user has it: a README and an earlier `mpigen render` of tensorflow-mnist."""
    root = tmp_path_factory.mktemp("previous-render")
    out = root / "out"
    out.mkdir()
    (out / "README.md").write_text("# Rendered manifests\nDo not edit by hand.\n", encoding="utf-8")
    done = run_mpigen("render", str(MNIST), "-o", "out", cwd=root, env=env(), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stderr.decode()
    assert (out / ".mpigen-index").is_file() and (out / "kustomization.yaml").is_file()
    return out


def check_case(case: Case, tmp_path: Path, previous_render: Path) -> None:
    for rel, content in case.files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    for rel in case.dirs:
        (tmp_path / rel).mkdir(parents=True)
    shutil.copytree(previous_render, tmp_path / "out", symlinks=True)
    before = snapshot(tmp_path)
    assert "out/README.md" in before and "out/.mpigen-index" in before

    for outcome in run_modes(tmp_path, case.args, timeout=case.timeout):
        check_refused(outcome, case.expected)

    after = snapshot(tmp_path)
    assert sorted(after) == sorted(before), "a failed run created or removed files"
    assert [p for p in before if after[p] != before[p]] == [], "a failed run changed files"


@pytest.mark.parametrize("case", CASES)
def test_invalid_input_is_reported_at_its_position(case, tmp_path, previous_render):
    check_case(case, tmp_path, previous_render)


# --- every problem in one run -------------------------------------------------------------

# Three independent problems, with spec before metadata so that file order differs from
# the order of the fields in the format.
_THREE = textwrap.dedent("""\
    apiVersion: mpigen.dev/v1alpha1
    kind: MPIJobBlueprint
    spec:
      replicas: 4
      image: horovod/horovod:0.28.1
      workers: 0
      command: [python, /examples/train.py]
    metadata:
      name: Resnet
    """)
_WORKERS_0 = variant(("workers: 4", "workers: 0"))
_BAD_FRAMEWORK = variant(("framework: horovod", "framework: pytorchh"))
_DUP_AND_RANGE = variant(("  name: demo\n", "  name: demo\n  name: demo2\n"), ("workers: 4", "workers: 0"))
_TYPE_AND_LABEL = variant(("    team: vision", "    app: vision"), ("workers: 4", 'workers: "4"'))
_NO_IMAGE_NO_COMMAND = variant(("  image: horovod/horovod:0.28.1\n", ""),
                               ("  command: [python, /examples/train.py]\n", ""))

_W0 = dict(msg=["spec.workers", ">= 1"])
MULTI = [
    param("three-problems-one-file", Case({"bad.yaml": _THREE}, (
        err(_THREE, "replicas:", msg=["spec: unknown key 'replicas'"]),
        err(_THREE, "workers: 0", "0", **_W0),
        err(_THREE, "name: Resnet", "Resnet", msg=["metadata.name", "DNS-1035"]),
    ))),
    param("one-problem-in-each-of-two-files", Case({"a.yaml": _WORKERS_0, "b.yaml": _BAD_FRAMEWORK}, (
        err(_WORKERS_0, "workers: 0", "0", path="a.yaml", **_W0),
        err(_BAD_FRAMEWORK, "pytorchh", path="b.yaml", msg=["spec.framework", "'pytorchh'"]),
    ), args=("a.yaml", "b.yaml"))),
    param("syntax-error-file-and-invalid-file", Case({"a.yaml": _yaml_syntax, "b.yaml": _WORKERS_0}, (
        err(_yaml_syntax, "horovod/horovod: 0.28.1", ": 0.28.1", path="a.yaml", msg=["invalid YAML"]),
        err(_WORKERS_0, "workers: 0", "0", path="b.yaml", **_W0),
    ), args=("a.yaml", "b.yaml"))),
    param("missing-path-and-invalid-file", Case({"b.yaml": _WORKERS_0}, (
        ("a-missing.yaml", 0, 0, ("no such file",)),
        err(_WORKERS_0, "workers: 0", "0", path="b.yaml", **_W0),
    ), args=("a-missing.yaml", "b.yaml"))),
    param("duplicate-key-and-out-of-range", Case({"bad.yaml": _DUP_AND_RANGE}, (
        err(_DUP_AND_RANGE, "name: demo2", msg=["duplicate key 'name'"]),
        err(_DUP_AND_RANGE, "workers: 0", "0", **_W0),
    ))),
    param("wrong-type-and-reserved-label", Case({"bad.yaml": _TYPE_AND_LABEL}, (
        err(_TYPE_AND_LABEL, "app: vision", "app", msg=["metadata.labels", "'app'"]),
        err(_TYPE_AND_LABEL, 'workers: "4"', '"4"', msg=["spec.workers", "expected an integer"]),
    ))),
    param("missing-image-and-command", Case({"bad.yaml": _NO_IMAGE_NO_COMMAND}, (
        err(_NO_IMAGE_NO_COMMAND, "spec:", msg=["spec", "required key 'image'"]),
        err(_NO_IMAGE_NO_COMMAND, "spec:", msg=["spec", "required key 'command'"]),
    ))),
]


@pytest.mark.parametrize("case", MULTI)
def test_every_problem_is_reported_in_one_run(case, tmp_path, previous_render):
    check_case(case, tmp_path, previous_render)


# --- the boundary that is accepted ---------------------------------------------------------

@pytest.mark.parametrize("length, workers", [(54, 4), (53, 11)], ids=["54+worker-3", "53+worker-10"])
def test_worker_pod_name_of_exactly_63_characters_is_accepted(length, workers, tmp_path):
    name = "a" * length
    assert len(f"{name}-worker-{workers - 1}") == 63
    (tmp_path / "edge.yaml").write_text(long_name(length, workers), encoding="utf-8")
    for outcome in run_modes(tmp_path, ["edge.yaml"], modes=("validate", "render --stdout")):
        assert outcome.returncode == 0, f"mpigen {outcome.mode}:\n{outcome.stderr}"
        assert ": error: " not in outcome.stderr and "Traceback" not in outcome.stderr, outcome.stderr
        if outcome.mode == "render --stdout":
            assert f"name: {name}-worker\n".encode() in outcome.stdout


def test_deep_nesting_and_oversized_files_are_refused(tmp_path):
    deep = "a: " + "[" * 200 + "]" * 200 + "\n"
    (tmp_path / "deep.yaml").write_text(deep)
    (tmp_path / "huge.yaml").write_bytes(b"# " + b"x" * (5 * 1024 * 1024) + b"\n")
    for name, expected in (("deep.yaml", "nesting is deeper than"), ("huge.yaml", "larger than")):
        for outcome in run_modes(tmp_path, [name]):
            assert outcome.returncode == 2, outcome
            assert "Traceback" not in outcome.stderr
            assert re.match(rf"^({name}:\d+:\d+: error|error: {name}): .*{expected}", outcome.stderr), outcome.stderr


@pytest.mark.parametrize("edit, needle, message", [
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, gpus: 4}"), "gpus", "not a Kubernetes resource"),
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, rdma/hca: 500m}"), "500m", "whole numbers"),
    (("    worker: {cpu: 2, memory: 4Gi}", "    worker: {cpu: 2, example.kubernetes.io/x: 1}"), "example.kubernetes.io/x",
     "reserved"),
    (("  workers: 2\n", "  workers: 2\n  gpuResource: gpu\n"), "gpu\n", "not an extended resource"),
])
def test_resource_names_kubernetes_would_refuse(tmp_path, edit, needle, message):
    text = MNIST.read_text().replace(*edit)
    assert text != MNIST.read_text()
    (tmp_path / "bad.yaml").write_text(text)
    line, column = pos(text, needle)
    for outcome in run_modes(tmp_path, ["bad.yaml"]):
        assert outcome.returncode == 2
        assert outcome.stderr.startswith(f"bad.yaml:{line}:{column}: error: "), outcome.stderr
        assert message in outcome.stderr
