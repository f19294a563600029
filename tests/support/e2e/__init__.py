"""The pretend cluster of the end-to-end MPI test: network namespaces as pods, a kubectl shim, the
allreduce program."""
