"""`mpigen import`: the job manifests given read by the decompiler each job's target declares
(mpigen.decompile), each blueprint proved by rendering it back, and written as new files only."""
