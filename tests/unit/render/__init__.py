"""Unit tests of mpigen.render."""
