"""Kubernetes vocabulary: names and label keys, quantities, label selectors, image references, accelerators,
JSON merge patch, values as the API server compares them, the pods of workloads, immutable fields."""
