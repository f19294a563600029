"""Reviewing a render: diff, git revisions, the live cluster and schema validation of rendered objects."""
