"""Decompile, the inverse of compile: job manifests and their pod templates read back into
blueprints, every loss at its line, by the MPIJob decompiler (decompile/mpijob.py), which a
target's decompiler of its own kind reads its job through, declared by the port (decompile/port.py)."""
