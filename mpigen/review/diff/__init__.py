"""`mpigen diff`: what a change to the rendered manifests does on the clusters, object by object and job by job."""
