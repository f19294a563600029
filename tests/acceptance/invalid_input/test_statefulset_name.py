"""A worker StatefulSet whose pods Kubernetes never creates: the static target's workers are
the StatefulSet <name>-worker, whose pods carry the label
controller-revision-hash=<StatefulSet name>-<hash of up to 10 characters>; a label value has
at most 63 characters (k8s.io/apimachinery IsValidLabelValue), so a StatefulSet name over
63 - 1 - 10 = 52 characters leaves every pod create refused (kubernetes/kubernetes#64023).
Where the StatefulSet would be created and its pods never are, mpigen refuses the blueprint
(exit 2, at metadata.name, with the longest name that fits); the targets whose workers are
pods (mpijob: the operators' newWorker makes Pods, reference/mpi-operator.md 3.6 and 4.6)
have no such limit, and say nothing of it."""

from __future__ import annotations

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.text import pos, write

LABEL_VALUE, HASH = 63, 10
MAX_STATEFULSET_NAME = LABEL_VALUE - len("-") - HASH


def test_a_statefulset_name_over_52_characters_is_an_error_at_metadata_name(cli):
    name = "s" * (MAX_STATEFULSET_NAME - len("-worker") + 1)  # <name>-worker: 53 characters
    text = write("bp/job.yaml", blueprint_text(name, workers=2))
    done = cli("render", "bp", "--stdout")
    assert done.returncode == 2 and done.stdout == b""
    line, column = pos(text, f'"{name}"')
    [message] = [line_ for line_ in done.stderr.splitlines() if ": error: " in line_ or ": warning: " in line_]
    assert message.startswith(f"bp/job.yaml:{line}:{column}: error: metadata.name: "), message
    assert "53 characters" in message and "52" in message and "kubernetes/kubernetes#64023" in message
    assert f"at most {MAX_STATEFULSET_NAME - len('-worker')} characters" in message
    assert cli("validate", "bp").returncode == 2


def test_the_longest_statefulset_name_renders(cli):
    name = "s" * (MAX_STATEFULSET_NAME - len("-worker"))
    write("bp/job.yaml", blueprint_text(name, workers=2))
    done = cli("render", "bp", "--stdout")
    assert done.returncode == 0, done.stderr
    assert "metadata.name" not in done.stderr
    [statefulset] = [o for o in done.objects() if o["kind"] == "StatefulSet"]
    assert len(statefulset["metadata"]["name"]) == MAX_STATEFULSET_NAME


@pytest.mark.parametrize("api", ["kubeflow.org/v2beta1", "kubeflow.org/v1"])
def test_the_operators_worker_pods_have_no_statefulset_limit(cli, api):
    name = "s" * 54  # the last pod, <name>-worker-1, is 63 characters
    write("bp/job.yaml", blueprint_text(name, workers=2))
    done = cli("render", "bp", "--stdout", "--target", "mpijob", "--mpijob-api", api)
    assert done.returncode == 0, done.stderr
    assert "metadata.name" not in done.stderr


@pytest.mark.parametrize("profile", ["argocd", "flux"])
def test_with_the_run_suffix_the_statefulset_name_is_an_error(cli, profile):
    # <name>-<run>-worker is the name plus 14 characters: 39 gives 53 (at most 38 fits).
    name = "s" * 39
    text = write("bp/job.yaml", blueprint_text(name, namespace="team", workers=2))
    done = cli("render", "bp", "--stdout", "--gitops", profile)
    assert done.returncode == 2, done.stderr
    line, column = pos(text, f'"{name}"')
    [message] = [line_ for line_ in done.stderr.splitlines() if ": error: " in line_]
    assert message.startswith(f"bp/job.yaml:{line}:{column}: error: metadata.name: "), message
    assert f"--gitops {profile}" in message and "at most 38 characters" in message
