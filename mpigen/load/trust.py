"""Whose a repository is: an mpigen.yaml owned by another user, or kept in another user's folder,
is used only when the user says it is safe, as git judges every repository it opens.

git 2.35.2 and later (CVE-2022-24765) refuses a repository whose top folder or git folder
another user owns, whoever's working folder it was found from, unless the user's own
configuration names it in `safe.directory` (`*`: every folder): setup.c ensure_valid_ownership,
which asks git-compat-util.h is_path_owned_by_current_uid for each path. That function reads
the owner with lstat (a link is judged by its own owner, not by its target's) and compares
it with the effective uid; when that is root, a path root owns is root's, and so is one owned
by the uid in SUDO_UID, when it is a decimal number (git ignores one strtoul cannot read).
git's documentation of safe.directory (Documentation/config/safe.adoc) says why: "When Git is
running as 'root' in a non Windows platform that provides sudo, however, git checks the
SUDO_UID environment variable that sudo creates and will allow access to the uid recorded as
its value in addition to the id from 'root'", for "make && sudo make install"; root without
SUDO_UID uses only what root owns.

mpigen judges the mpigen.yaml a run finds, and the folder that holds it (the repository the
run would work from), the same way: two lstat calls. The user's word is MPIGEN_SAFE_DIRECTORIES,
the folders (absolute, `~` for the home folder) of the repositories to use whoever owns them,
separated by os.pathsep, or `*` for all: an environment variable, so that it is the user's
own (no file of anyone's to trust in turn), and a container or a CI job can set it.
"""

from __future__ import annotations

import os
import pwd
import shlex
from dataclasses import dataclass
from pathlib import Path

from mpigen.errors import Diagnostic, Mark, error

SAFE_DIRECTORIES = "MPIGEN_SAFE_DIRECTORIES"
EVERY_FOLDER = "*"


@dataclass(frozen=True)
class Foreign:
    """An mpigen.yaml that another user owns (`in_folder`: whose folder another user owns)."""

    config: Path  # absolute
    owner: int  # the other user's uid
    in_folder: bool
    trusted_by: str | None  # the MPIGEN_SAFE_DIRECTORIES entry that names its folder; None: not named

    @property
    def whose(self) -> str:
        """`owned by nobody (uid 65534), not by you (root)`, or `in a folder owned by ...`."""
        owned = f"owned by {user_name(self.owner)}, not by you ({' or '.join(_your_names())})"
        return f"in a folder {owned}" if self.in_folder else owned


def user_ids() -> tuple[int, ...]:
    """The owners whose files are the user's, by git's rule: the effective uid; for root,
    also SUDO_UID (the user who ran sudo)."""
    euid = os.geteuid()
    sudo = os.environ.get("SUDO_UID", "")
    if euid == 0 and sudo.isascii() and sudo.isdigit() and int(sudo) != 0:
        return 0, int(sudo)
    return (euid,)


def foreign(config: Path) -> Foreign | None:
    """The verdict on the mpigen.yaml `config` (absolute): None when it and its folder are the
    user's (or cannot be looked at: reading it then says why); else whose they are."""
    mine = user_ids()
    for path, in_folder in ((config, False), (config.parent, True)):
        try:
            owner = os.lstat(path).st_uid
        except OSError:
            continue
        if owner not in mine:
            return Foreign(config, owner, in_folder, trusted_by(config.parent))
    return None


def trusted_by(folder: Path) -> str | None:
    """The entry of MPIGEN_SAFE_DIRECTORIES that names `folder` (as written, or after its
    links are followed), or `*`; None when none does. A relative entry names nothing."""
    entries = [entry for entry in os.environ.get(SAFE_DIRECTORIES, "").split(os.pathsep) if entry]
    if EVERY_FOLDER in entries:
        return EVERY_FOLDER
    for entry in entries:
        path = os.path.expanduser(entry)
        if os.path.isabs(path) and (os.path.normpath(path) == os.path.normpath(folder)
                                    or os.path.realpath(path) == os.path.realpath(folder)):
            return entry
    return None


def refusal(found: Foreign, here: bool) -> Diagnostic:
    """The error of a run that found another user's mpigen.yaml: whose it is, how to trust it,
    and how to go on without it (`here`: it is in the working folder, not above it)."""
    folder = found.config.parent.as_posix()
    earlier = os.environ.get(SAFE_DIRECTORIES)
    value = f'"${SAFE_DIRECTORIES}"{os.pathsep}{shlex.quote(folder)}' if earlier else shlex.quote(folder)
    way_on = ("work in a copy of your own" if here else
              f"run mpigen outside {folder}, or in a folder of yours that holds an mpigen.yaml of its own "
              "(the nearest is used)")
    return error(Mark(found.config.as_posix()),
                 f"{found.whose}: mpigen uses another user's {found.config.name} only when you say it is safe, "
                 f"as git does a repository; if you trust it, add its folder to {SAFE_DIRECTORIES} (export "
                 f"{SAFE_DIRECTORIES}={value}), else {way_on}")


def user_name(uid: int) -> str:
    """`nobody (uid 65534)`; `uid 1234` for a uid the system does not name."""
    name = _name(uid)
    return f"uid {uid}" if name is None else f"{name} (uid {uid})"


def _your_names() -> list[str]:
    """The names of user_ids(): `root`, `ana by sudo`."""
    you, *sudo = [_name(uid) or f"uid {uid}" for uid in user_ids()]
    return [you, *(f"{name} by sudo" for name in sudo)]


def _name(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None
