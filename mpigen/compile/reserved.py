"""The names compile writes into the pods, which a blueprint may not name: the /dev/shm
volume and its mount, and the rank environment's mount (mpigen.compile.environment). The
launcher's variables are the targets' (each target's reserved names)."""

from __future__ import annotations

from mpigen.compile.blueprint import SHM_MOUNT, SHM_VOLUME
from mpigen.compile.environment import RANK_ENV_DIR
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(SHM_VOLUME,), mounts=(SHM_MOUNT, RANK_ENV_DIR))
