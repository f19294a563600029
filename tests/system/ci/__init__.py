"""The CI loop of a user repository in real git: diff against revisions, the example GitHub
Actions workflow, the pre-commit hooks, a render into the repository's output."""
