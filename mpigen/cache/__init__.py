"""The cache of incremental renders: what each blueprint file gave, kept under a digest of everything its output depends on."""
