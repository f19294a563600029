"""Render: the compiled MPIJob -> the Kubernetes objects of one target."""
