"""Compile: a Blueprint -> the MPIJob model, target-neutral: its pod templates, the mpirun
line, and the environment every target's pods get (what a target adds is the target's)."""
