"""Target mpijob: the MPIJob resource (kubeflow.org/v2beta1 or v1) for a cluster's operator,
and its CustomResourceDefinition."""
