"""Unit tests of mpigen.overlay."""
