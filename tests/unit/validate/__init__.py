"""Unit tests of mpigen.validate."""
