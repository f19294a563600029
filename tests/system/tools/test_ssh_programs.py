"""The rendered scripts of the targets that start ranks over ssh (jobset, trainjob) stop, with
a line that names the missing program and docs/ssh.md, when the image lacks the OpenSSH server
(/usr/sbin/sshd, which the workers' script runs), the client (ssh, on the PATH mpirun finds it
on; the launcher shares the workers' image) or, for the jobset's key generator, ssh-keygen. Each
script is taken from the rendered objects and run by a real POSIX shell (sh -c), on a PATH
without the program, or under a mount namespace in which /usr/sbin is an empty folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.blueprints import blueprint_text
from tests.support.rendering import render_text

SSHD = Path("/usr/sbin/sshd")
UNSHARE, MOUNT = shutil.which("unshare"), shutil.which("mount")


def rendered(target: str, **spec) -> list[dict]:
    return render_text(blueprint_text("train", **spec), target=target)


def strings(value) -> list[str]:
    """Every string inside a rendered object."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in strings(item)]


def sshd_script(target: str) -> str:
    """The workers' sshd.sh: the jobset's ConfigMap key, or what the trainjob's ssh-setup writes."""
    if target == "jobset":
        [config] = [o for o in rendered("jobset") if o["kind"] == "ConfigMap"]
        return config["data"]["sshd.sh"]
    [setup] = {s for s in strings(rendered("trainjob")) if "<<'SSHD'" in s}
    return setup.split("<<'SSHD'\n", 1)[1].split("\nSSHD\n", 1)[0]


def keygen_script() -> str:
    [jobset] = [o for o in rendered("jobset") if o["kind"] == "JobSet"]
    [script] = [s for s in strings(jobset) if "ssh-keygen -q" in s]
    return script


def run(script: str, path: Path, *args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, "/bin/sh", "-c", script, *args], env={"PATH": str(path)},
                          capture_output=True, text=True, timeout=60)


def refused(done: subprocess.CompletedProcess, program: str) -> None:
    assert done.returncode == 1, (done.returncode, done.stderr)
    [line] = done.stderr.splitlines()
    assert f"{program} not found in the image" in line and "docs/ssh.md" in line, line


@pytest.mark.skipif(not SSHD.exists(), reason="no OpenSSH server at /usr/sbin/sshd to get past its check")
@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_the_workers_script_names_a_missing_ssh_client(tmp_path, target):
    refused(run(sshd_script(target), tmp_path), "ssh")


@pytest.mark.skipif(UNSHARE is None or MOUNT is None, reason="unshare and mount (util-linux) are not installed")
@pytest.mark.parametrize("target", ["jobset", "trainjob"])
def test_the_workers_script_names_a_missing_sshd(tmp_path, target):
    """/usr/sbin hidden under an empty folder, in a user and mount namespace of the test's own."""
    empty = tmp_path / "empty"
    empty.mkdir()
    hide = f'{MOUNT} --bind "{empty}" /usr/sbin && exec "$@"'
    probe = subprocess.run([UNSHARE, "-rm", "/bin/sh", "-c", "exit 0"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no user namespace here: {probe.stderr.decode().strip()}")
    prefix = (UNSHARE, "-rm", "/bin/sh", "-c", hide, "hide")
    refused(run(sshd_script(target), tmp_path, prefix=prefix), "/usr/sbin/sshd")


def test_the_key_generator_names_a_missing_ssh_keygen(tmp_path):
    refused(run(keygen_script(), tmp_path, "keygen", "train-ssh", "default", "train"), "ssh-keygen")
