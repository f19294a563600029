"""Unit tests of mpigen.decompile."""
