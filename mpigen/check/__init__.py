"""Check: a compiled job judged on its pods as they will run, between compile and render, whose
door is mpigen.check.stage (check_job) for the pipeline, and the rules of effective, pod_checks,
failure_checks, shared_rules, run_names and pod_fields for the targets' own checks and render."""
