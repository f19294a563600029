"""What the production acceptance tests (tests/acceptance/production/) share: a blueprint with
more fields, the `»` position marks and the diagnostics read back, the commands a check runs under,
the Check case and accessors of rendered pods."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

import pytest

from tests.support import blueprints
from tests.support.blueprints import MINIMAL_SPEC_YAML, blueprint_text
from tests.support.rendering import by_kind, render_text


MARK = "»"
DIAGNOSTIC = re.compile(r"^job\.yaml:(\d+):(\d+): (error|warning): (.*)$")


def blueprint_yaml(spec: str) -> str:
    """The minimal blueprint `job` plus spec fields given as dedented YAML."""
    return blueprints.blueprint_yaml("job", spec=MINIMAL_SPEC_YAML + textwrap.dedent(spec).lstrip("\n"))


def marked(text: str) -> tuple[str, int, int]:
    """The text without its one `»`, and the 1-based line and column where it was."""
    assert text.count(MARK) == 1, "a case marks exactly one position"
    before = text[:text.index(MARK)]
    return text.replace(MARK, ""), before.count("\n") + 1, len(before) - before.rfind("\n")


def diagnostics(done) -> list[tuple[int, int, str, str]]:
    """(line, column, severity, message) of every diagnostic line on stderr."""
    found = []
    for line in done.stderr.splitlines():
        match = DIAGNOSTIC.match(line)
        if match:
            found.append((int(match[1]), int(match[2]), match[3], match[4]))
        else:
            assert ": error: " not in line and ": warning: " not in line, f"unparsable diagnostic {line!r}"
    return found


def pod(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]


def template_meta(obj: dict) -> dict:
    return obj["spec"]["template"].get("metadata", {})


def env_pairs(container: dict) -> list[tuple]:
    return [(e["name"], e.get("value")) for e in container.get("env", [])]


def static(spec: dict, name: str = "job", **options) -> dict[str, dict]:
    """The objects of the static target by kind, and by name under `name/<object name>`."""
    objects = render_text(blueprint_text(name, **spec), **options)
    indexed = by_kind(objects)
    indexed.update({f"name/{o['metadata']['name']}/{o['kind']}": o for o in objects})
    return indexed


VALIDATE = ("validate",)
STATIC = ("render", "--stdout")
V2BETA1 = ("render", "--stdout", "--target", "mpijob")
V1 = V2BETA1 + ("--mpijob-api", "kubeflow.org/v1")
ARGOCD = ("render", "--stdout", "--gitops", "argocd")
FLUX = ("render", "--stdout", "--gitops", "flux")


@dataclass(frozen=True)
class Check:
    bad: str                 # spec YAML with `»` before the reported key or value
    fix: tuple[str, str]     # (old, new): the near-identical blueprint that must stay quiet
    severity: str
    field: str               # the message starts with it
    args: tuple = VALIDATE

    def texts(self) -> tuple[str, int, int, str]:
        bad, line, column = marked(blueprint_yaml(self.bad))
        old, new = self.fix
        assert bad.count(old) == 1, f"{old!r} must occur exactly once"
        return bad, line, column, bad.replace(old, new)


def check(case_id, bad, fix, severity, field, args=VALIDATE, marks=()):
    return pytest.param(Check(bad, fix, severity, field, args), id=case_id, marks=marks)


DOWNLOAD = "download: {command: [sh, -c, 'echo > /data/x']}"
NP_FLAGS = ("-np", "--np", "-n", "--n", "-c", "--np=8", "--n=8")


# The targets and profiles every feature is rendered under.
RENDERS = {"static": {}, "argocd": {"gitops": "argocd"}, "flux": {"gitops": "flux"},
           "mpijob-v2beta1": {"target": "mpijob"}}


# The two tests every check case runs (tests/acceptance/production/test_*_checks.py).

def assert_check_triggers(cli_job, case: Check) -> None:
    """The check reports exactly one diagnostic, of its severity, naming the field, at the
    line and column of what to change; errors exit 2 with nothing on stdout, warnings exit 0."""
    bad, line, column, _ = case.texts()
    done = cli_job(bad, *case.args)
    found = diagnostics(done)
    assert [(f[0], f[1], f[2]) for f in found] == [(line, column, case.severity)], done.stderr
    assert found[0][3].startswith(case.field), found[0][3]
    if case.severity == "error":
        assert done.returncode == 2 and done.stdout == b""
    else:
        assert done.returncode == 0, done.stderr
        assert bool(done.stdout) == (case.args[0] == "render")


def assert_check_stays_quiet(cli_job, case: Check) -> None:
    """The same blueprint with the one change the message asks for has no diagnostic at all."""
    _, _, _, good = case.texts()
    done = cli_job(good, *case.args)
    assert diagnostics(done) == [] and done.returncode == 0, done.stderr
