"""Unit tests of mpigen.render.static: blueprint -> objects against the operator's facts."""
