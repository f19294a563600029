"""Target static: the objects the MPI Operator's v1alpha2 controller creates for an MPIJob,
rendered so that no operator is needed."""
