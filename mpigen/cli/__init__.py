"""The command line: argument parsing, the lazy command table, named exit codes and printing."""
