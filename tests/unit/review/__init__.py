"""Unit tests of mpigen.review."""
