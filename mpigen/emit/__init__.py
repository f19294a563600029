"""Rendered objects as deterministic YAML, the output layout, and the GitOps controllers' companion manifests."""
