"""Support code the tests share that is not itself a test: the golden output, the operator's model,
generated MPIJobs, the pretend cluster."""
