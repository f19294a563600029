"""Unit tests of mpigen.render.trainjob: blueprint -> objects tables."""
