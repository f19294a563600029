"""`mpigen import`, by feature: the round trip of the examples, the cases of what import carries or
reports, generated MPIJobs, the command line."""
