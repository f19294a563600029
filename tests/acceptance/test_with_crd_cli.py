"""--with-crd through the command line: the MPIJob CRD in the output (with Argo CD's server-side
apply and Flux's substitution guard), and the option's errors."""

from __future__ import annotations

import pytest
import yaml

from tests.support.kubernetes_schema import validate
from tests.support.paths import ROOT

def test_with_crd_in_the_output(cli, tmp_path):
    (tmp_path / "bp").mkdir()
    (tmp_path / "bp" / "job.yaml").write_text((ROOT / "blueprints" / "tensorflow-mnist.yaml").read_text())
    done = cli("render", "bp", "-o", "out", "--target", "mpijob", "--with-crd", "--gitops", "argocd")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "out" / "_cluster" / "customresourcedefinition-mpijobs.kubeflow.org.yaml"
    definition = yaml.safe_load(path.read_text())
    # and Flux's substitution guard: the CRD's descriptions hold `$$` (mpigen.emit.flux_substitution)
    assert definition["metadata"]["annotations"] == {"argocd.argoproj.io/sync-options": "ServerSideApply=true",
                                                     "argocd.argoproj.io/sync-wave": "-2",
                                                     "kustomize.toolkit.fluxcd.io/substitute": "disabled"}
    assert len(path.read_bytes()) > 262144  # too large for client-side apply's annotation
    kustomization = yaml.safe_load((tmp_path / "out" / "kustomization.yaml").read_text())
    assert kustomization["resources"][0] == "_cluster/customresourcedefinition-mpijobs.kubeflow.org.yaml"
    validate(definition | {"metadata": {"name": definition["metadata"]["name"]}})


@pytest.mark.parametrize("args, message", [
    (["--with-crd"], "only the mpijob target uses; add --target mpijob"),
    (["--target", "mpijob", "--with-crd", "--kube-version", "1.12"], "Kubernetes 1.12 is not one of the known"),
])
def test_crd_option_errors(cli, tmp_path, args, message):
    done = cli("render", str(ROOT / "blueprints"), "--stdout", *args)
    assert done.returncode == 2 and done.stdout == b"" and message in done.stderr
