"""Tests that run the tools mpigen's output is for: MPI launchers, OpenSSH, the shell and lint-imports."""
