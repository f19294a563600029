"""A Python port of what Kubeflow Trainer v2.3.0 makes of a TrainJob and its (Cluster)TrainingRuntime
(the JobSet, the SSH Secret and the hostfile ConfigMap of the MPI plugin), for the end-to-end test."""
