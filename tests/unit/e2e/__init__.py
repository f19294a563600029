"""Tests of the end-to-end test's own models, against the facts they model."""
