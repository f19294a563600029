"""The exit codes of mpigen, by name (docs/cli.md lists them)."""

SUCCESS = 0
DIFFERENCES_FOUND = 1  # check: the output folder is stale; diff: the two renders differ
INPUT_ERROR = 2        # invalid input or usage, a refused object, or a machine limit: nothing written
INTERNAL_ERROR = 3     # a bug: please report it
INTERRUPTED = 130      # Ctrl-C (128 + SIGINT)
