"""What compile writes into the pods, which a blueprint may not name: the /dev/shm volume,
the rank environment's mount, and the launcher's variables (mpigen.compile.environment)."""

from __future__ import annotations

from mpigen.compile.blueprint import SHM_MOUNT, SHM_VOLUME
from mpigen.compile.environment import LAUNCHER_ENV_NAMES, RANK_ENV_DIR
from mpigen.validate.reserved import Reserved

RESERVED = Reserved(volumes=(SHM_VOLUME,), mounts=(SHM_MOUNT, RANK_ENV_DIR), env=LAUNCHER_ENV_NAMES)
