"""Unit tests of mpigen.render.mpijob: blueprint -> objects tables."""
