"""Tests of the command line, by feature: what a user runs and sees."""
