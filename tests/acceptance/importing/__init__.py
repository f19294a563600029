"""`mpigen import`, by feature: the round trip of the examples, the cases of what import carries or
reports, generated MPIJobs, the command line.

The proof is a round trip against the operator, modelled from shared/reference/
mpi-operator.md in tests/support/operator_model.py: a kubeflow.org/v1alpha2 MPIJob imported and
rendered (static target) gives the objects the v1alpha2 controller creates for it; a v1
or v2beta1 MPIJob imported and rendered as an MPIJob of its own API gives it back with
its operator's defaults; both outside the contract's exceptions. A TrainJob rendered by mpigen
and imported with its runtime renders the same objects again (test_trainjob.py). Whatever a blueprint
cannot carry is a warning at its line (an error with --strict); an MPIJob the operator,
the API server or mpigen would refuse is an error at its line.
"""
