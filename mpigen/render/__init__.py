"""Render: the compiled MPIJob -> Kubernetes objects, by one package per target behind one
interface (render/target.py, the table in render/targets.py), with a GitOps run identity."""
