"""The facade the command line and the tests call: one function per command, on options resolved in one place."""
