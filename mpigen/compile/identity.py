"""The ServiceAccount of a job's cloud identity (spec.serviceAccount.annotations): <job>-identity,
which mpigen adds beside the job for the workers to run as (mpigen.render.parts.additions), and
`mpigen import` knows as mpigen's own."""

from __future__ import annotations

IDENTITY_SUFFIX = "-identity"
