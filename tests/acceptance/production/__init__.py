"""Production jobs, by feature: the compile-time checks, the framework presets, rank-env.sh,
PodGroups, the pod fields of the production blueprint fields, and their schema.

Expectations are written out by hand from shared/reference/user-needs.md section 9,
mpi-operator.md 2.7 and 4.8, shared/contract.md section 1 and the blueprint's field
descriptions, never computed with mpigen's own functions. Positions of diagnostics are
marked in the YAML of each case with `»` right before the reported key or value.
"""
