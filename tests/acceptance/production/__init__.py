"""Production jobs, by feature: the compile-time checks, the framework presets, rank-env.sh,
PodGroups, the pod fields of the production blueprint fields, and their schema."""
