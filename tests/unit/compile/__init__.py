"""Unit tests of mpigen.compile."""
