"""The cli_job fixture of the production tests: `mpigen ARGS job.yaml` in-process, job.yaml holding a text."""

from __future__ import annotations

import pytest

from tests.support.text import write


@pytest.fixture
def cli_job(cli):
    """cli_job(yaml_text, *args): `mpigen ARGS job.yaml` in-process, with job.yaml holding the text."""
    def run(text: str, *args: str):
        write("job.yaml", text)
        return cli(*args, "job.yaml")

    return run
