"""The GitOps profiles (`--gitops argocd|flux`), by feature (shared/reference/gitops.md, sections
B.3, G and H)."""
