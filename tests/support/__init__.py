"""Support code the tests share that is not itself a test, and all a test module imports from
tests/: the blueprint builder, the command-line harness, the golden output, the operator's
model, generated MPIJobs, the pretend cluster."""
