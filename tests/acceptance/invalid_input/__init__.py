"""Invalid input: every class of bad blueprint is refused the way the contract says.

For each class the real CLI runs in a subprocess, as `validate PATH`, `render PATH -o out`
and `render PATH --stdout`, and each run must:
- exit with code 2;
- print `PATH:LINE:COLUMN: error: MESSAGE` on stderr for every problem (and no other
  error), with the path as given on the command line, the 1-based line and column of the
  offending key (unknown/duplicate/bad map keys), value (wrong values) or parent key
  (missing keys), and a message that names the field and, where sensible, the fix;
- print no Python traceback and nothing on stdout;
- stay within MEMORY_LIMIT of address space (RLIMIT_AS), so an alias bomb, deep nesting or
  a huge file is refused in bounded memory, and within a hang guard of RUN_TIMEOUT
  (no timing assertion: the project measures speed in bench/, not in tests);
- leave the working folder byte for byte as it was, in particular the -o folder, which
  holds a README.md and a previous render of blueprints/tensorflow-mnist.yaml.

Expected positions are computed from the YAML text of each case (see `pos`), never typed
in by hand. The three commands of one case run concurrently so that the file stays fast
on a 2-core CI machine.
"""
