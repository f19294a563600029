"""Unit tests of mpigen.check."""
