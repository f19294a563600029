"""The cache folders of a run of the suite: the suite's own (this user's), and one per other user
a test runs mpigen as, so that no run uses the user's ~/.cache/mpigen (tests/conftest.py makes
and removes them)."""

from __future__ import annotations

import os
import tempfile

# "folder": the suite's cache folder (this user's); uid -> that user's. Filled and emptied by
# the session fixture of tests/conftest.py.
SESSION_CACHES: dict = {}


def environment_of(uid: int) -> dict[str, str]:
    """The environment of a run as the user `uid` (through setpriv): this one, but that the
    suite's cache folder, which is this user's and which mpigen does not use as anyone else
    (mpigen.cache.folder), is replaced by a folder of that user's own, in /tmp (which every
    user reaches), made once a session. A cache folder a test chose stays."""
    environment = dict(os.environ)
    if "folder" in SESSION_CACHES and environment.get("MPIGEN_CACHE_DIR") == SESSION_CACHES["folder"]:
        if uid not in SESSION_CACHES:
            SESSION_CACHES[uid] = tempfile.mkdtemp(prefix=f"mpigen-cache-{uid}-", dir="/tmp")
            os.chown(SESSION_CACHES[uid], uid, uid)
        environment["MPIGEN_CACHE_DIR"] = SESSION_CACHES[uid]
    return environment
