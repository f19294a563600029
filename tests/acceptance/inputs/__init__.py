"""What mpigen reads, by feature: unreadable inputs, special files and links, a standard output
that cannot take the output, bare overlay names."""
