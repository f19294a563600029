"""Target trainjob: a Kubeflow Trainer v2 TrainJob per job, and the runtime it references."""
