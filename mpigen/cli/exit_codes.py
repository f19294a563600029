"""The exit codes of mpigen, by name (docs/cli.md lists them)."""

SUCCESS = 0
DIFFERENCES_FOUND = 1  # check: the output folder is stale; diff: the two renders differ
NOT_AS_GIT_SAYS = 1    # status: a job failed, is missing, or runs when Git stops or holds it
INPUT_ERROR = 2        # invalid input or usage, a refused object, or a machine limit: nothing written
INTERNAL_ERROR = 3     # a bug: please report it
INTERRUPTED = 130      # Ctrl-C (128 + SIGINT)
