"""Kubernetes vocabulary: names and label keys, quantities, label selectors, image references, accelerators, JSON merge patch."""
