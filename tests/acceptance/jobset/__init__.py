"""Target jobset: what it renders, checked against the JobSet, Kueue and Kubernetes facts of shared/reference/targets.md."""
