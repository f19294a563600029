"""Tests of mpigen with the rest of the system: real MPI, JobSet and TrainJob runs in a pretend
cluster (test_e2e_*), the wheel installed into a fresh venv (install/), the docs' commands run
as shown (test_docs_run, test_operating_doc), runs as another user, and the CI loop in real git
repositories with git, pre-commit and the GitHub workflow (ci/). Slow, and they need the
machine's tools (root, setpriv, git, kubectl): the acceptance tier (tests/acceptance/) tests the
command line alone."""
