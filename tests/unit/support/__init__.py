"""Tests of the test harness's own machinery, against the machine it runs on."""
