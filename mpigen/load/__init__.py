"""Loading inputs: file discovery, YAML with positions, and a document read into a format's model with positioned errors."""
