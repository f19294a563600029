"""The CI loop of a user repository, through the command line, by step: check, diff of folders and
against a revision, parallel rendering, the example GitHub Actions workflow, the pre-commit
hooks."""
