"""Unit tests of mpigen.formats."""
