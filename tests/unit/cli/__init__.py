"""Unit tests of mpigen.cli."""
