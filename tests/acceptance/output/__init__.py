"""The -o output folder, by feature: its layout, its index, failures of the machine, killed and
concurrent runs, overlap with the inputs."""
