"""How much a GitOps run lengthens the names a target derives from a job's name: each is
named as the job `<name>-<run>` would be (mpigen.render.gitops), <run> a hash of
RUN_HASH_LENGTH characters; the checks size a name's room by it, the render names the run."""

from __future__ import annotations

RUN_HASH_LENGTH = 6
RUN_SUFFIX = RUN_HASH_LENGTH + 1  # what a run adds to the job's name: -<run>


def run_suffix(gitops: str) -> int:
    """The characters the profile adds to every name derived from the job's: -<run>, or none."""
    return 0 if gitops == "none" else RUN_SUFFIX


def name_room(name: str, longest: int, limit: int, gitops: str) -> int:
    """How many characters the job's name may have under the profile, for the longest name a
    target derives from it (`longest` characters from this `name`, without a run) to stay
    within `limit`: the name fits if it is no longer than that."""
    return limit - (longest - len(name)) - run_suffix(gitops)
