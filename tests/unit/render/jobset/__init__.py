"""Unit tests of mpigen.render.jobset: blueprint -> objects tables."""
