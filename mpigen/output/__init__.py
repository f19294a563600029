"""Writing the output folder: the plan of a render's files, their atomic commit, the index of what mpigen wrote, and staleness (check)."""
