"""Target `jobset`: one JobSet per job, its ranks started over SSH, Kueue-native."""
