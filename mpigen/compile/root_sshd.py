"""What a root sshd needs of the capabilities every mpigen container drops: the render adds
them to a root sshd's container (mpigen.render.parts.sshd), and the import takes them back out.

Found by running OpenSSH's sshd with only these in its bounding set and dropping each in
turn: SYS_CHROOT (privilege separation), SETUID and SETGID (becoming the user), AUDIT_WRITE
(sshd built with Linux audit, the Red Hat family, refuses logins it cannot record), KILL
(ending its unprivileged pre-authentication child when a login fails), and NET_BIND_SERVICE
for a port below 1024. A non-root sshd needs none.
"""

from __future__ import annotations

STANDARD_PORT = 22


def root_capabilities(port: int) -> tuple[str, ...]:
    """What a root sshd listening on `port` needs, in order."""
    needed = ("AUDIT_WRITE", "KILL", "SETGID", "SETUID", "SYS_CHROOT") + (("NET_BIND_SERVICE",) if port < 1024 else ())
    return tuple(sorted(needed))


# What an sshd on the standard port needs when it runs as root (the MPI Operator's v2beta1
# workers, as its images run it); a non-root sshd needs none.
STANDARD_ROOT_CAPABILITIES = root_capabilities(STANDARD_PORT)
