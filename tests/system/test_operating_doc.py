"""docs/operating.md runs (issue 52): every command of it, `mpigen status` and kubectl alike,
in a copy of this repository rendered by `mpigen render`, against a local API server holding
the prod environment's jobs as their controllers write them and one job of each other target
in namespace `research` (tests/support/operating_doc.py); the output it shows is what they
print, and each `kubectl logs` reads the log of the launcher pod its selector is meant to find.

kubectl and jq are the reader's tools the doc uses: `make test` installs them (the Makefile's
SYSTEM_PACKAGES: Debian's kubernetes-client and jq); CI must run this test, so there a missing
one fails it rather than skipping it (tests.support.input_repository.need)."""

from __future__ import annotations

import shutil

import pytest

from tests.support.docs_run import assert_shown, commands, not_run, repository, run_block, shell_blocks
from tests.support.input_repository import need
from tests.support.operating_doc import OPERATING, RESEARCH, RUN_ALSO, cluster, is_launcher, job_of, reader_env

pytest.importorskip("kubernetes")
TOOLS = {"kubectl": "kubernetes-client", "jq": "jq"}  # the command -> Debian's package (the Makefile's)


def test_every_command_of_operating_md_runs_as_shown(tmp_path):
    missing = [package for tool, package in TOOLS.items() if shutil.which(tool) is None]
    need(f"Debian's {', '.join(missing)} missing (make install-test installs what the tests need)" if missing
         else None)
    blocks = shell_blocks(OPERATING)
    every = [command for block in blocks for command in commands(block.text)]
    assert [c for c in every if not_run(c) and not c.startswith(RUN_ALSO)] == []
    assert sum(c.startswith("kubectl logs") for c in every) == 5
    repo = repository(tmp_path / "repository")
    with cluster(repo) as server:
        env = reader_env(tmp_path, server)
        for block in blocks:
            _, output = run_block(block, repo, env, RUN_ALSO)
            if block.output is not None:
                assert_shown(f"{block.doc}:{block.line}", output, block.output)
        logs = sorted(path for method, path, _ in server.requests if path.endswith("/log"))
        launchers = sorted(f"/api/v1/namespaces/{pod['metadata']['namespace']}/pods/{pod['metadata']['name']}/log"
                           for pod in server.objects if pod["kind"] == "Pod" and is_launcher(pod)
                           and job_of(pod) in ("tensorflow-mnist", *RESEARCH))
    assert len(launchers) == 5 and logs == launchers

