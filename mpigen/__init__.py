"""mpigen compiles MPI training job blueprints into plain, deterministic Kubernetes manifests (docs/architecture.md)."""

__version__ = "0.1.0"
