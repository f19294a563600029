"""Unit tests of mpigen.project."""
