"""`mpigen import`: existing MPIJob manifests read into blueprints, losses reported at their line."""
