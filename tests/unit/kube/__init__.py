"""Unit tests of mpigen.kube."""
