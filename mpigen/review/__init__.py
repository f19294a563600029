"""Reviewing a render: diff, git revisions, the live cluster, schema validation of rendered objects, and import."""
