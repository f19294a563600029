"""The unit tests of mpigen.status."""
