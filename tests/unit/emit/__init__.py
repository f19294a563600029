"""Unit tests of mpigen.emit."""
