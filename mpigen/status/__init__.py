"""`mpigen status`: what the cluster has of every job of an environment, beside what Git says
of it (mpigen.status.model)."""
