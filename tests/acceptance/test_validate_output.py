"""`mpigen validate --output` (issue 7, point 1): every rendered object against the strict
Kubernetes schemas of --kube-version (kubernetes-validate's), MPIJobs against the CRD
mpigen generates; a report per object as text, JSON or JUnit XML; exit 2 when a cluster
would refuse an object."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from tests.support.command_line import run_mpigen
from tests.support.golden import examples_for
from tests.support.paths import ROOT
from tests.support.text import write

BLUEPRINT = """apiVersion: mpigen.dev/v1alpha1
kind: MPIJobBlueprint
metadata: {name: job, namespace: team}
spec:
  image: img:1
  workers: 2
  command: [python, train.py]
"""


def job_file(tmp_path, patch: str = "") -> str:
    write(tmp_path / "job.yaml", BLUEPRINT + patch)
    return "job.yaml"


@pytest.mark.parametrize("version", ["1.25", "1.30", "1.37"])
def test_every_example_validates_on_every_supported_version(version):
    done = run_mpigen("validate", "--output", "--kube-version", version, "--format", "json", "blueprints", cwd=ROOT)
    assert done.returncode == 0, done.stdout.decode()[-2000:]
    report = json.loads(done.stdout)
    kinds = {r["kind"] for r in report["resources"] if r["status"] == "valid"}
    assert {"ConfigMap", "ServiceAccount", "Role", "RoleBinding", "StatefulSet", "Job"} <= kinds
    # the only objects without a schema at hand are the schedulers' PodGroups
    assert {r["kind"] for r in report["resources"] if r["status"] == "skipped"} == {"PodGroup"}
    assert report["summary"]["invalid"] == 0 and report["against"] == f"Kubernetes {version}"


def test_mpijobs_are_checked_against_the_generated_crd():
    done = run_mpigen("validate", "--output", "--target", "mpijob", "--format", "json", *examples_for("mpijob"),
                      cwd=ROOT)
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert {r["kind"] for r in report["resources"] if r["status"] == "valid"} >= {"MPIJob"}

    from mpigen.review.schemas import validate_object

    job = next(r for r in report["resources"] if r["kind"] == "MPIJob")
    bad = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": job["name"]},
           "spec": {"slotsPerWorker": "eight", "unknownField": 1, "mpiReplicaSpecs": {}}}
    status, errors = validate_object(bad, "1.30", {})
    assert status == "invalid"
    assert any(e.startswith("spec.slotsPerWorker: ") for e in errors)
    assert any(e.startswith("spec: ") and "unknownField" in e for e in errors)


# A host alias's hostnames given as one name, not a list: below the pod spec's own fields, which
# mpigen types (a `terminationGracePeriodSeconds: soon` is refused at its line before any render).
PATCH_OUTSIDE_MPIGENS_TYPES = "  podTemplatePatch:\n    worker:\n      pod: {hostAliases: [{ip: 10.0.0.1, hostnames: gateway}]}\n"


def test_an_object_a_cluster_would_refuse_fails_with_a_report_per_object(tmp_path):
    """A patch value of the wrong type that mpigen's own table of pod field types does not
    reach (mpigen.formats.pod_field_types) passes the blueprint but not the pod schema: the
    report names the object, the field and why."""
    path = job_file(tmp_path, PATCH_OUTSIDE_MPIGENS_TYPES)
    done = run_mpigen("validate", "--output", path, cwd=tmp_path)
    assert done.returncode == 2
    problem = ("team/statefulset-job-worker.yaml: StatefulSet team/job-worker is invalid: "
               "spec.template.spec.hostAliases.0.hostnames: 'gateway' is not of type 'array', 'null'")
    assert done.stdout.decode().splitlines() == [problem]  # the problems only
    assert done.stderr.decode().splitlines() == ["mpigen: 6 objects of 1 job against Kubernetes 1.30: 5 valid, "
                                                 "1 invalid, 0 skipped"]  # the one summary
    every = run_mpigen("validate", "--output", "-v", path, cwd=tmp_path)
    lines = every.stdout.decode().splitlines()
    assert every.returncode == 2 and len(lines) == 6 and problem in lines
    assert "team/job-job-launcher.yaml: Job team/job-launcher is valid" in lines
    assert every.stderr.decode().splitlines()[-1] == done.stderr.decode().splitlines()[-1]


def test_the_examples_print_no_verdict_but_their_summary_unless_asked():
    """152 objects: not 150 'is valid' lines; -v shows each object's verdict, skipped ones too (the
    Kueue example and the failure policy example, rendered with jobset by mpigen.yaml's targets
    rules, are 6 objects each in every environment)."""
    done = run_mpigen("validate", "--output", cwd=ROOT)  # every overlay of mpigen.yaml
    assert done.returncode == 0 and done.stdout == b""
    summary, = done.stderr.decode().splitlines()
    counts = re.fullmatch(r"mpigen: 152 objects of \d+ jobs against Kubernetes 1.30: (\d+) valid, 0 invalid, "
                          r"(\d+) skipped", summary)
    every = run_mpigen("validate", "--output", "-v", cwd=ROOT).stdout.decode().splitlines()
    assert sum(line.endswith(" is valid") for line in every) == int(counts[1])
    assert sum(" is skipped: " in line for line in every) == int(counts[2]) > 0


def test_the_kubernetes_version_decides_which_fields_exist(tmp_path):
    """schedulingGates came with Kubernetes 1.26: strict validation refuses it for 1.25."""
    path = job_file(tmp_path, "  podTemplatePatch:\n    worker:\n      pod: {schedulingGates: [{name: quota}]}\n")
    assert run_mpigen("validate", "--output", "--kube-version", "1.30", path, cwd=tmp_path).returncode == 0
    old = run_mpigen("validate", "--output", "--kube-version", "1.25", path, cwd=tmp_path)
    assert old.returncode == 2 and b"schedulingGates" in old.stdout


def test_junit_report(tmp_path):
    path = job_file(tmp_path, PATCH_OUTSIDE_MPIGENS_TYPES)
    done = run_mpigen("validate", "--output", "--format", "junit", path, cwd=tmp_path)
    assert done.returncode == 2
    root = ET.fromstring(done.stdout)
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("skipped")) == ("testsuites", "6", "1", "0")
    suite, = root
    assert suite.get("name") == "job.yaml" and len(suite) == 6
    failed = [case for case in suite if case.find("failure") is not None]
    assert [case.get("name") for case in failed] == ["StatefulSet team/job-worker"]
    assert "hostAliases.0.hostnames" in failed[0].find("failure").get("message")


def test_unknown_kubernetes_version(tmp_path):
    done = run_mpigen("validate", "--output", "--kube-version", "1.12", job_file(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith(b"error: --kube-version: Kubernetes 1.12 is not one of the known versions 1.25")


def test_without_output_nothing_is_rendered_or_validated(tmp_path):
    done = run_mpigen("validate", job_file(tmp_path), cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == b""
