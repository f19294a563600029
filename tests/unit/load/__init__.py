"""Unit tests of mpigen.load."""
