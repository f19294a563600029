"""What a target's importer is and what it is given: its declaration on the Target, a reader
of a manifest that reports what a blueprint cannot carry at its line, and a view of one
document as another."""
