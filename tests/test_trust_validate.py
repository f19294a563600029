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
are computed from the YAML text with conftest.pos, never typed in.
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

from tests.conftest import blueprint_text, pos, write

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


@pytest.fixture
def cli(mpigen_in_process):
    return mpigen_in_process


def job_text(**spec: str) -> str:
    """A blueprint as block YAML, spec fields given as YAML text (a value of None leaves
    the field out); metadata.namespace through `namespace`."""
    fields = {"image": "example.com/train:1", "workers": "2", "command": "[python, train.py]"}
    namespace = spec.pop("namespace", None)
    fields.update(spec)
    lines = ["apiVersion: mpigen.dev/v1alpha1", "kind: MPIJobBlueprint", "metadata:", "  name: job"]
    lines += [f"  namespace: {namespace}"] if namespace else []
    lines += ["spec:"] + [f"  {key}: {value}" for key, value in fields.items() if value is not None]
    return "\n".join(lines) + "\n"


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
    assert cli("validate").returncode == 0
    assert cli("validate", "blueprints/job.yaml").returncode == 2


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
