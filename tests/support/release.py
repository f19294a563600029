"""What a release of this checkout is made of (its sources, version and file names), and the
shell of a reader who installs one: a home of its own, the machine's Python and pip."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.docs_run import ENV
from tests.support.paths import ROOT

# What a clone holds that `make dist` reads: the package, its metadata, the README that is its
# long description, the Makefile. A file the build needs and this list lacks fails the build.
SOURCES = ("pyproject.toml", "README.md", "Makefile", "mpigen")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
WHEEL = f"mpigen-{VERSION}-py3-none-any.whl"
SDIST = f"mpigen-{VERSION}.tar.gz"


def reader_shell(root: Path) -> dict[str, str]:
    """The environment of a reader with nothing of mpigen: a home of its own under root, the
    PATH of the suite's shell without any folder that holds an `mpigen`, and `python3` the
    Python the suite runs on (outside its virtual environment); pip as this machine's user set
    it up (configuration and cache: the same index, and no download twice)."""
    home, python = root / "home", root / "python"
    home.mkdir()
    python.mkdir()
    (python / "python3").symlink_to(sys._base_executable)
    # (os.path.exists: a folder of PATH this user may not search, such as one under root's home
    # that `su` kept, holds no mpigen the shell could run)
    folders = [folder for folder in ENV["PATH"].split(os.pathsep)
               if folder and not os.path.exists(os.path.join(folder, "mpigen"))]
    env = {**ENV, "HOME": str(home), "PATH": os.pathsep.join([str(python), *folders]),
           "XDG_CONFIG_HOME": ENV.get("XDG_CONFIG_HOME", str(Path.home() / ".config"))}
    cache = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], env=ENV, capture_output=True, text=True)
    if cache.returncode == 0:  # else pip's cache is off (PIP_NO_CACHE_DIR), for the reader too
        env["PIP_CACHE_DIR"] = cache.stdout.strip()
    return env
