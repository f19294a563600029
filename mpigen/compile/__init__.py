"""Compile: a Blueprint -> the MPIJob model, its pod templates, the mpirun line, and the
launcher and rank environment of every target."""
