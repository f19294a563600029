"""Invalid input: every class of bad blueprint is refused the way the contract says."""
