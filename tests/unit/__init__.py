"""Tests of one package at a time, calling its functions directly: tests/unit/<package> tests
mpigen/<package>."""
