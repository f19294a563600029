"""The CI loop of a user repository, through the command line, by step: check, diff of folders,
parallel rendering, --strict (the runs against git revisions, the GitHub workflow and the
pre-commit hooks are in tests/system/ci/)."""
