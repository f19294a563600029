"""The API paths of the Kubeflow Trainer's kinds, for validate --server and diff --live, as
the Trainer's CRDs name them (kubeflow/trainer v2.3.0 manifests/base/crds/
trainer.kubeflow.org_{trainjobs,trainingruntimes,clustertrainingruntimes}.yaml: spec.names.plural
and spec.scope Namespaced, Namespaced, Cluster)."""

from __future__ import annotations

import pytest

from mpigen.review.live import resource_path

API = "trainer.kubeflow.org/v1alpha1"


@pytest.mark.parametrize("kind, path", [
    ("TrainJob", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainjobs/x"),
    ("TrainingRuntime", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml/trainingruntimes/x"),
    ("ClusterTrainingRuntime", "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/x"),
])
def test_each_trainer_kind_has_the_path_its_crd_gives(kind, path):
    meta = {"name": "x"} if kind == "ClusterTrainingRuntime" else {"name": "x", "namespace": "ml"}
    assert resource_path({"apiVersion": API, "kind": kind, "metadata": meta}) == path
