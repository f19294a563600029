"""The round trip of `mpigen import` through every target that has an importer: a blueprint
rendered under the target, its output imported, the imported blueprint rendered again, under
the same target (byte for byte) and under every target, with what import reported.

What the kind of object a target writes has no field for cannot come back, and is no loss of
what the input says (so import reports nothing): a TrainJob has no cleanPodPolicy (its JobSet
ends its pods with the run), an MPIJob's launch line is the same for frameworks whose
mpirun flags are the same (compile/launch.py), and a gang's minAvailable of the workers is
what an MPIJob whose launcher waits for them gets anyway (render/mpijob/resource.py): under another target, the imported blueprint
is compared with the blueprint as the kind says it (`as_the_kind_says`; compile.launch's
FRAMEWORK_FLAGS: Hydra's lines have no framework flags at all). Which gang scheduler
the MPI Operator runs is its --gang-scheduling flag, not the MPIJob's: mpigen names the
blueprint's on the MPIJob (mpigen.dev/gang-scheduler), and import reads it back."""

from __future__ import annotations

import copy

import yaml

from mpigen.compile.launch import FRAMEWORK_FLAGS
from mpigen.emit.yaml import dump_object

# The targets whose output `mpigen import` reads, with the options of the render.
IMPORTED_FROM = {
    "mpijob-v2beta1": ("--target", "mpijob", "--mpijob-api", "kubeflow.org/v2beta1"),
    "mpijob-v1": ("--target", "mpijob", "--mpijob-api", "kubeflow.org/v1"),
    "trainjob": ("--target", "trainjob"),
}
# Every target (and both MPIJob generations) a blueprint renders under.
EVERY_TARGET = {
    "static": ("--target", "static"),
    "jobset": ("--target", "jobset"),
    **IMPORTED_FROM,
}
def without_source(text: bytes) -> bytes:
    return b"".join(line for line in text.splitlines(keepends=True) if not line.startswith(b"# Source:"))


def rendered(cli, path: str, options: tuple[str, ...]) -> bytes | None:
    """The render's bytes (less its # Source: lines), or None when mpigen refuses the blueprint there."""
    done = cli("render", path, "--stdout", *options)
    assert done.returncode in (0, 2), done.stderr
    return without_source(done.stdout) if done.returncode == 0 else None


def as_the_kind_says(original: dict, imported: dict, source: str) -> dict:
    """The original blueprint less what the kind of object `source` writes has no field for."""
    blueprint = copy.deepcopy(original)
    spec, back = blueprint["spec"], imported["spec"]
    if source == "trainjob":
        spec.get("runPolicy", {}).pop("cleanPodPolicy", None)
        if spec.get("runPolicy") == {}:
            del spec["runPolicy"]
    else:
        flags = FRAMEWORK_FLAGS[spec.get("mpiImplementation", "OpenMPI")]
        if flags.get(spec.get("framework", "custom"), ()) == flags.get(back.get("framework", "custom"), ()):
            spec.pop("framework", None)
            spec.update({"framework": back["framework"]} if "framework" in back else {})
        # a gang's minAvailable of the workers, which an MPIJob's launcher waiting for them gets anyway
        gang = spec.get("scheduling", {}).get("gang", {})
        if spec.get("launcher", {}).get("waitForWorkers") and gang.get("minAvailable") == spec["workers"]:
            del gang["minAvailable"]
    return blueprint


def round_trip(cli, tmp_path, text: str, source: str) -> tuple[dict, str] | None:
    """Render `text` under `source`, import that, and check the imported blueprint's renders:
    byte for byte under `source`, and under every target as the kind says the original.
    (the imported blueprint, what import reported), or None when mpigen refuses the original under source
    or renders nothing of it (docs/blueprints.md, `state`: a queued job that is completed renders as archived)."""
    (tmp_path / "original.yaml").write_text(text)
    first = rendered(cli, "original.yaml", IMPORTED_FROM[source])
    if first is None or not first.strip():
        return None  # refused there, or nothing to import (a queued job in state completed renders nothing)
    (tmp_path / "rendered.yaml").write_bytes(first)
    done = cli("import", "rendered.yaml", "--stdout")
    assert done.returncode == 0, done.stderr
    (tmp_path / "imported.yaml").write_bytes(done.stdout)
    imported = yaml.safe_load(done.stdout)
    original = yaml.safe_load(text)
    assert rendered(cli, "imported.yaml", IMPORTED_FROM[source]) == first, source
    (tmp_path / "projected.yaml").write_text(dump_object(as_the_kind_says(original, imported, source)))
    for target, options in EVERY_TARGET.items():
        assert rendered(cli, "imported.yaml", options) == rendered(cli, "projected.yaml", options), (source, target)
    return imported, done.stderr
