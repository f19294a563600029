"""Issue 15, defects 13 and 14: overlays cannot hide an invalid blueprint, and hostile but
legal inputs (huge env maps, big patches, deep overlay graphs, many errors) neither hang
nor take unbounded memory.

Every value a file states must be valid as written, even where every overlay replaces
it: its type, range, format, allowed values and keys, and anything inside a list (a
merge patch replaces a list whole, so nothing in it can be mended piecewise). Rules of the
whole blueprint (a required key of a mapping, rules across the keys of a mapping, limits
across fields) hold for what the overlays give, so an overlay may still supply what a
base blueprint leaves out. The same holds for the values an overlay's patches state.

The repositories are built in a tmp folder and run through the CLI (`validate`,
`render -o`, `check`), in-process where the process boundary is not the point; positions
are computed from the YAML text with text.pos, never typed in.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_text, blueprint_yaml
from tests.support.command_line import run_mpigen
from tests.support.text import pos, write

OVERLAY_HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n"
CONFIG = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noverlays: [dev, prod]\noutput: out\n"
COMMANDS = (("validate",), ("render", "-o", "out"), ("check",))
# A hang guard for the scale cases (no timing assertion): each finishes in seconds now;
# the code before the fix took from several minutes to hours on them.
HANG_GUARD = 120


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MPIGEN_DEBUG", raising=False)
    return tmp_path


def job_text(**spec: str) -> str:
    """A blueprint as block YAML, spec fields given as YAML text (a value of None leaves
    the field out); metadata.namespace through `namespace`."""
    namespace = spec.pop("namespace", None)
    fields = {**dict(line.split(": ", 1) for line in MINIMAL_SPEC_YAML.splitlines()), **spec}
    return blueprint_yaml("job", f"namespace: {namespace}\n" if namespace else "",
                          "".join(f"{key}: {value}\n" for key, value in fields.items() if value is not None))


def overlay(name: str, body: str) -> str:
    return write(f"overlays/{name}/overlay.yaml", OVERLAY_HEAD + textwrap.dedent(body))


def patch_overlay(name: str, *patches: dict) -> str:
    """An overlay whose patches (JSON, which is YAML) apply to every blueprint, one a line."""
    lines = ["patches:"] + [f"  - patch: {json.dumps(p)}" for p in patches]
    return overlay(name, "\n".join(lines) + "\n")


def at(path: str, text: str, needle: str, sub: str | None = None) -> str:
    line, column = pos(text, needle, sub)
    return f"{path}:{line}:{column}"


def refused_everywhere(cli) -> list[str]:
    """validate, render -o out and check: each exits 2 with the same error lines, prints
    nothing on stdout and writes nothing. Returns the error lines."""
    seen = []
    for command in COMMANDS:
        done = cli(*command)
        assert done.returncode == 2, (command, done.stderr)
        assert "Traceback" not in done.stderr and done.stdout == b""
        assert not Path("out").exists()
        seen.append(done.lines("error"))
    assert seen[0] == seen[1] == seen[2], seen
    return seen[0]


# --- defect 14: a value the file states is checked as written ----------------------------

# (blueprint spec fields, needle and sub for the position, what both overlays do, message)
BAD_VALUES = {
    "type": ({"workers": "two"}, "workers: two", "two", {"spec": {"workers": 3}},
             "spec.workers: expected an integer, got string 'two'"),
    "range": ({"gpusPerWorker": "5000"}, "gpusPerWorker: 5000", "5000", {"spec": {"gpusPerWorker": 1}},
              "spec.gpusPerWorker: must be <= 1024, got 5000"),
    "format": ({"mainContainer": "Trainer_1"}, "Trainer_1", None, {"spec": {"mainContainer": "trainer"}},
               "spec.mainContainer: string 'Trainer_1' is not a DNS-1123 label"),
    "allowed values": ({"framework": "horovd"}, "horovd", None, {"spec": {"framework": "horovod"}},
                       "spec.framework: string 'horovd' is not one of"),
    "unknown key, removed by the overlay": (
        {"workerz": "3"}, "workerz: 3", "workerz", {"spec": {"workerz": None}},
        "spec: unknown key 'workerz'; did you mean 'workers'?"),
    "reserved env name, removed by the overlay": (
        {"env": "{HYDRA_HOST_FILE: /tmp/hosts}"}, "HYDRA_HOST_FILE", None,
        {"spec": {"env": {"HYDRA_HOST_FILE": None}}},
        "spec.env: HYDRA_HOST_FILE is set by the MPI Operator on the launcher"),
    "a list item's own rule, the list replaced": (
        {"placement": "{worker: {tolerations: [{operator: Exists, value: a100}]}}"}, "{operator", None,
        {"spec": {"placement": {"worker": {"tolerations": []}}}},
        "spec.placement.worker.tolerations[0]: a toleration with operator Exists takes no value"),
    "a key missing in a list item, the list replaced": (
        {"datasets": "[{name: data, pvc: claim}]"}, "{name: data", None,
        {"spec": {"datasets": [{"name": "data", "mountPath": "/data", "pvc": "claim"}]}},
        "spec.datasets[0]: required key 'mountPath' is missing"),
    "two datasets of one name, the list replaced": (
        {"datasets": "[{name: a, mountPath: /a, pvc: c}, {name: a, mountPath: /b, pvc: c}]"},
        "name: a, mountPath: /b", "a,", {"spec": {"datasets": []}},
        "spec.datasets[1].name: 'a' is already used by spec.datasets[0]"),
}


@pytest.mark.parametrize("case", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_a_bad_value_is_refused_once_at_its_line_even_when_every_overlay_replaces_it(cli, case):
    spec, needle, sub, patch, message = case
    write("mpigen.yaml", CONFIG)
    patch_overlay("dev", patch)
    patch_overlay("prod", patch, {"spec": {"workers": 8}})
    text = write("blueprints/job.yaml", job_text(**spec))
    where = at("blueprints/job.yaml", text, needle, sub)
    errors = refused_everywhere(cli)
    assert len(errors) == 1 and errors[0].startswith(f"{where}: error: {message}"), errors
    # Rendering the file on its own refuses it at the same place, with the same words.
    alone = cli("render", "blueprints/job.yaml", "--stdout")
    assert alone.returncode == 2 and errors[0] in alone.lines("error"), alone.stderr
    # With the value fixed, the same overlays render: the error was the file's own.
    write("blueprints/job.yaml", job_text())
    assert cli("validate").returncode == 0


def test_an_overlay_that_sets_the_namespace_does_not_hide_a_bad_one(cli):
    write("mpigen.yaml", CONFIG)
    overlay("dev", "namespace: ml-dev\n")
    overlay("prod", "namespace: ml-prod\n")
    text = write("blueprints/job.yaml", job_text(namespace="ML_Team"))
    errors = refused_everywhere(cli)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{at('blueprints/job.yaml', text, 'ML_Team')}: error: metadata.namespace: "
                                "string 'ML_Team' is not a DNS-1123 label"), errors


def test_an_error_that_one_overlay_leaves_and_one_replaces_is_reported_once(cli):
    write("mpigen.yaml", CONFIG)
    patch_overlay("dev", {"metadata": {"labels": {"env": "dev"}}})
    patch_overlay("prod", {"spec": {"workers": 3}})
    text = write("blueprints/job.yaml", job_text(workers="two"))
    assert refused_everywhere(cli) == [f"{at('blueprints/job.yaml', text, 'two')}: error: spec.workers: "
                                       "expected an integer, got string 'two'"]


# --- rules of the whole blueprint hold for what the overlays give -------------------------

def test_an_overlay_may_supply_what_a_blueprint_leaves_out(cli):
    """docs/overlays.md: the patched result is validated like any blueprint, so required keys
    of mappings and rules across keys may be completed by every overlay."""
    write("mpigen.yaml", CONFIG)
    supply = {"spec": {"image": "example.com/train:2", "scheduling": {"gang": {"scheduler": "volcano"}},
                       "launcherCommand": ["mpirun", "python", "train.py"],
                       "serviceAccount": {"annotations": None}}}
    patch_overlay("dev", supply)
    patch_overlay("prod", supply, {"spec": {"workers": 4}})
    text = write("blueprints/job.yaml", job_text(
        image=None, command=None, scheduling="{gang: {queue: training}}",
        serviceAccount="{name: reader, annotations: {iam: role}}"))
    for command in COMMANDS:
        done = cli(*command)
        assert done.returncode == 0, (command, done.stderr)
    assert sorted(p.name for p in Path("out").iterdir() if p.is_dir()) == ["dev", "prod"]
    # On its own the file is incomplete, and each whole-blueprint rule says so.
    alone = cli("validate", "blueprints/job.yaml")
    assert alone.returncode == 2
    errors = alone.lines("error")
    assert f"{at('blueprints/job.yaml', text, 'spec:')}: error: spec: required key 'image' is missing" in errors
    assert any(e.startswith(at("blueprints/job.yaml", text, "gang:")) and "'scheduler' is missing" in e
               for e in errors), errors
    assert any("required key 'command' is missing" in e for e in errors), errors
    assert any("give either name" in e for e in errors), errors


def test_a_limit_across_fields_holds_for_the_patched_blueprint(cli):
    """The last worker pod's name (<name>-worker-<workers-1>) must fit in 63 characters:
    a limit across metadata.name and spec.workers, judged once the overlay set workers."""
    write("mpigen.yaml", CONFIG)
    patch_overlay("dev", {"spec": {"workers": 2}})
    patch_overlay("prod", {"spec": {"workers": 2}})
    name = "j" * 53  # with 100000 workers the last pod would be <name>-worker-99999: 66 characters
    write("blueprints/job.yaml", job_text(workers="100000").replace("name: job", f"name: {name}"))
    # on the mpijob target, whose workers are the operator's pods: the static target's
    # StatefulSet allows no name this long whatever the workers (kubernetes#64023)
    assert cli("validate", "--target", "mpijob").returncode == 0
    assert cli("validate", "blueprints/job.yaml", "--target", "mpijob").returncode == 2


# --- an overlay's patch values are checked as written ---------------------------------------

def test_a_patch_that_selects_no_blueprint_is_still_checked(cli):
    write("mpigen.yaml", CONFIG)
    write("blueprints/job.yaml", job_text())
    text = overlay("dev", """\
        patches:
          - target: {name: "resnet*"}
            patch: {spec: {workers: many}}
        """)
    overlay("prod", "labels: {env: prod}\n")
    errors = refused_everywhere(cli)
    assert errors == [f"{at('overlays/dev/overlay.yaml', text, 'many')}: error: spec.workers: expected an "
                      "integer, got string 'many'"]


def test_a_patch_value_replaced_by_a_later_patch_or_overlay_is_still_checked(cli):
    write("mpigen.yaml", CONFIG)
    write("blueprints/job.yaml", job_text())
    base = overlay("base", """\
        patches:
          - patch: {spec: {env: {PRTE_MCA_plm_ssh_agent: /bin/false}}}
        """)
    dev = overlay("dev", """\
        bases: [base]
        patches:
          - patch: {spec: {gpusPerWorker: -1}}
          - patch: {spec: {gpusPerWorker: 1, env: {PRTE_MCA_plm_ssh_agent: null}}}
        """)
    overlay("prod", "labels: {env: prod}\n")
    errors = refused_everywhere(cli)
    assert errors == [
        f"{at('overlays/base/overlay.yaml', base, 'PRTE_MCA_plm_ssh_agent')}: error: spec.env: "
        "PRTE_MCA_plm_ssh_agent is set by the MPI Operator on the launcher and would be overridden; remove it",
        f"{at('overlays/dev/overlay.yaml', dev, '-1')}: error: spec.gpusPerWorker: must be >= 0, got -1"]


def test_a_bad_patch_value_applied_to_blueprints_is_reported_for_each_as_before(cli):
    write("mpigen.yaml", CONFIG)
    write("blueprints/one.yaml", blueprint_text("one"))
    write("blueprints/two.yaml", blueprint_text("two"))
    text = patch_overlay("dev", {"spec": {"workers": "many"}})
    overlay("prod", "labels: {env: prod}\n")
    where = at("overlays/dev/overlay.yaml", text, '"many"')
    message = "spec.workers: expected an integer, got string 'many'"
    assert refused_everywhere(cli) == [f"{where}: error: {message} (applied to blueprints/{name}.yaml)"
                                       for name in ("one", "two")]


# --- defect 13: hostile but legal inputs scale --------------------------------------------

def bounded(*args: str, memory_mib: int | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m mpigen ARGS` in the current folder, within HANG_GUARD seconds and, when
    given, memory_mib MiB of address space per process (RLIMIT_AS, inherited by workers)."""
    def limit():
        if memory_mib is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))

    environ = {**os.environ, **(env or {})}
    environ.pop("MPIGEN_DEBUG", None)
    try:
        return run_mpigen(*args, env=environ, preexec_fn=limit, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"mpigen {' '.join(args)} did not finish within {HANG_GUARD} s")


def env_lines(count: int, indent: str, value=lambda i: f"value-{i}") -> str:
    return "".join(f"{indent}VAR_{i}: {value(i)}\n" for i in range(count))


def test_an_overlay_patching_100000_env_entries_is_applied_and_pointed_at_in_bounded_memory():
    """Marks of a patched blueprint were merged write by write (writes x marks): hours for
    this case. A wrong value at the last entry is reported at its line in the overlay."""
    count = 100_000
    write("blueprints/env.yaml", job_text(env="\n" + env_lines(count, "    ").rstrip("\n")))
    head = "patches:\n  - patch:\n      spec:\n        env:\n"
    bad = overlay("dev", head + env_lines(count, "          ", lambda i: "7" if i == count - 1 else f"o-{i}"))
    done = bounded("validate", "blueprints", "--overlay", "dev", memory_mib=384)
    where = at("overlays/dev/overlay.yaml", bad, f"VAR_{count - 1}: 7", "7")
    assert done.returncode == 2 and done.stderr.decode().splitlines() == [
        f"{where}: error: spec.env.VAR_{count - 1}: expected a string, got integer 7; YAML reads this unquoted "
        "value as a non-string: put it in quotes (applied to blueprints/env.yaml)"]
    # Rendered whole, and refused whole: a StatefulSet of 100,000 variables is over etcd's
    # request limit (mpigen.pipeline.oversize), which the render reports without writing.
    overlay("dev", head + env_lines(count, "          ", lambda i: f"o-{i}"))
    done = bounded("render", "blueprints", "--overlay", "dev", "-o", "out", memory_mib=384)
    assert done.returncode == 2 and not Path("out").exists(), done.stderr
    assert "error: spec.env: the StatefulSet job-worker would take at least" in done.stderr.decode()


def test_many_errors_among_many_list_items_are_all_reported():
    """The cross-field checks looked up every earlier error for every list item they read
    (errors x items): 30,000 env values of the wrong type beside 30,000 datasets took many
    minutes."""
    count = 30_000
    datasets = "".join(f"    - {{name: d{i}, mountPath: /d/{i}, pvc: c}}\n" for i in range(count))
    text = write("blueprints/job.yaml", job_text(env="\n" + env_lines(count, "    ", str).rstrip("\n"),
                                                 datasets="\n" + datasets.rstrip("\n")))
    done = bounded("validate", "blueprints")
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == count
    last = count - 1
    where = at("blueprints/job.yaml", text, f": {last}\n", str(last))
    assert lines[-1] == (f"{where}: error: "
                         f"spec.env.VAR_{last}: expected a string, got integer {last}; YAML reads this unquoted "
                         "value as a non-string: put it in quotes")


def test_overlay_bases_shared_by_many_paths_are_applied_once_each():
    """30 levels of overlays, each with the two overlays of the next level as bases: 2^30
    paths to the bottom, walked one by one before. docs/overlays.md: bases first, depth
    first, in order; an overlay reached twice is applied once."""
    levels = 30
    for i in range(levels):
        bases = f"[a{i + 1}, b{i + 1}]" if i + 1 < levels else "[]"
        for side in "ab":
            overlay(f"{side}{i}", f"bases: {bases}\nannotations: {{order: {side}{i}}}\nlabels: {{{side}{i}: x}}\n")
    write("blueprints/job.yaml", job_text())
    done = bounded("render", "blueprints", "--overlay", "a0", "--stdout")
    assert done.returncode == 0, done.stderr
    import yaml

    job = next(o for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "Job")
    labels = job["metadata"]["labels"]
    assert {f"{side}{i}" for i in range(1, levels) for side in "ab"} | {"a0"} <= labels.keys()
    assert "b0" not in labels
    # a0 is applied last, so its annotation wins.
    assert job["metadata"]["annotations"]["order"] == "a0"


def test_validating_many_large_blueprints_keeps_one_file_at_a_time():
    """Each worker held every loaded document of its slice of the repository (with the
    marks of every key and value): 1,000 blueprints of 1,000 env entries needed about
    205 MiB of address space per process, and more on fewer cores. Now a file at a
    time: within 160 MiB."""
    head = job_text(env="{}").replace("  env: {}\n", "  env:\n")
    body = env_lines(1000, "    ")
    for i in range(1000):
        write(f"blueprints/job-{i:04d}.yaml", head.replace("name: job", f"name: job-{i:04d}") + body)
    done = bounded("validate", "blueprints", memory_mib=160)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().strip() == "mpigen: 1000 blueprints valid"


DYING_WORKERS = """\
import os, signal, sys
import mpigen.pipeline.run as run
parent, work = os.getpid(), run.file_results
def dying(files, **given):
    if os.getpid() != parent:  # in a worker process: killed, as the out-of-memory killer does
        os.kill(os.getpid(), signal.SIGKILL)
    return work(files, **given)
run.file_results = dying
from mpigen.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_killed_worker_neither_hangs_the_run_nor_loses_its_blueprints(tmp_path):
    """multiprocessing.Pool waits forever for the result of a worker that was killed, and a
    pool that cannot start (no memory left for its threads) left its workers behind,
    holding stderr open. The run now finishes the slices itself."""
    from mpigen.pipeline.pool import PARALLEL_THRESHOLD

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: mpigen renders serially whatever the size")
    for i in range(PARALLEL_THRESHOLD):
        write(f"blueprints/job-{i:03d}.yaml", blueprint_text(f"job-{i:03d}"))
    write(tmp_path / "dying.py", DYING_WORKERS)
    serial = bounded("render", "blueprints", "--stdout", env={"MPIGEN_PROCESSES": "1"})
    environ = {k: v for k, v in os.environ.items() if k not in ("MPIGEN_DEBUG", "MPIGEN_PROCESSES")}
    try:
        dying = subprocess.run([sys.executable, str(tmp_path / "dying.py"), "render", "blueprints", "--stdout"],
                               env=environ, capture_output=True, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the render with killed workers did not finish within {HANG_GUARD} s")
    assert serial.returncode == dying.returncode == 0, dying.stderr
    assert dying.stdout == serial.stdout and dying.stdout.count(b"\nkind: Job\n") == PARALLEL_THRESHOLD
