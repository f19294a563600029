"""Tests that need the machine itself: root, real owners (chown), the user nobody, tmpfs mounts and user namespaces."""
