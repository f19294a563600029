"""`mpigen import`, the inverse of compile: job manifests read back into blueprints, each by
the importer its target declares, every loss reported at its line."""
