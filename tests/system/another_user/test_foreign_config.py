"""Another user's mpigen.yaml (issue 28, defect 3): the mpigen.yaml a run finds, in the working
folder or above it, is used only when it and its folder are the user's, or the user names its
folder in MPIGEN_SAFE_DIRECTORIES, as git judges a repository (safe.directory); otherwise the
run stops with one error naming the file, its owner and the ways on, exit 2, writing nothing.

Two real users (root, as the tests run, and nobody through setpriv) in a folder both may write
into, with mode 1777 as the system's temp folder has: one plants an mpigen.yaml there whose
kubectlDeliveryImage would reach the other's launcher. Runs as root under sudo are judged as
git judges them (SUDO_UID), and git itself is asked the same question where it is recent
enough to follow the rule its documentation states."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml

from tests.support.any_user import any_user_install, as_user
from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen
from tests.support.input_repository import refused, snapshot
from tests.support.output_machine import NOBODY, chown_tree, need_root, unavailable
from tests.support.overlays import CONFIG_HEAD, OVERLAY_HEAD
from tests.support.paths import ROOT
from tests.support.text import write

PLANTED = "evil.example/kubectl:planted"
MINE = "example.com/kubectl:mine"
ROOT_UID = 0
OTHER = 4321  # a uid no one on the machine has


@pytest.fixture
def shared():
    """A folder every user may write into (mode 1777, root's, as /tmp is); pytest's own tmp_path
    is root's alone."""
    need_root()
    if shutil.which("setpriv") is None:
        unavailable("setpriv (util-linux) is not installed")
    path = Path(tempfile.mkdtemp(prefix="mpigen-foreign-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(uid: int, *args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """`mpigen ARGS` as the user `uid` in cwd, with no SUDO_UID and nothing trusted but what
    `env` says."""
    environ = {key: value for key, value in os.environ.items() if key not in ("SUDO_UID", "MPIGEN_SAFE_DIRECTORIES")}
    if uid == ROOT_UID:
        return run_mpigen(*args, cwd=cwd, env={**environ, **env}, timeout=120)
    return run_mpigen(*args, cwd=cwd, env={**environ, **env}, prefix=as_user(uid), python=any_user_install().python,
                      timeout=120)


def repository(folder: Path, uid: int, image: str | None = None) -> Path:
    """A repository of one blueprint owned by `uid`, with its own mpigen.yaml when `image` is given."""
    write(folder / "blueprints" / "job.yaml", blueprint_text("job"))
    if image is not None:
        write(folder / "mpigen.yaml", CONFIG_HEAD + f"kubectlDeliveryImage: {image}\n")
    chown_tree(folder, uid, uid)
    return folder


def plant(folder: Path, uid: int) -> Path:
    """An mpigen.yaml of user `uid` in `folder`, setting the launcher's kubectl image."""
    config = folder / "mpigen.yaml"
    write(config, CONFIG_HEAD + f"kubectlDeliveryImage: {PLANTED}\n")
    os.chown(config, uid, uid)
    return config


def kubectl_images(done: subprocess.CompletedProcess) -> set[str]:
    assert done.returncode == 0, done.stderr.decode()
    return {container["image"] for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "Job"
            for container in o["spec"]["template"]["spec"]["initContainers"]}


def test_root_is_refused_the_mpigen_yaml_another_user_planted_above_its_repository(shared, tmp_path):
    plant(shared, NOBODY)
    repo = repository(shared / "repo", ROOT_UID)
    before = snapshot(shared)
    expected = (f"error: {shared}/mpigen.yaml: owned by nobody (uid 65534), not by you (root): mpigen uses another "
                "user's mpigen.yaml only when you say it is safe, as git does a repository; if you trust it, add its "
                f"folder to MPIGEN_SAFE_DIRECTORIES (export MPIGEN_SAFE_DIRECTORIES={shared}), else run mpigen "
                f"outside {shared}, or in a folder of yours that holds an mpigen.yaml of its own (the nearest is used)")
    for folder, args in [(repo, ("render", "blueprints", "--stdout")), (repo, ("render", "blueprints", "-o", "out")),
                         (repo, ("validate", "blueprints")), (repo, ("check", "blueprints", "-o", "out")),
                         (repo, ("render",)), (repo / "blueprints", ("render", "job.yaml", "--stdout"))]:
        done = run(ROOT_UID, *args, cwd=folder, MPIGEN_CACHE_DIR=str(tmp_path / "cache"))
        assert refused(done, " ".join(args)) == [expected]
    assert snapshot(shared) == before and not (tmp_path / "cache").exists()


def test_with_the_user_s_word_the_other_user_s_mpigen_yaml_is_used(shared):
    """What was refused is what the planted file would do: set the launcher's kubectl image."""
    plant(shared, NOBODY)
    repo = repository(shared / "repo", ROOT_UID)
    for trusted in (str(shared), f"/elsewhere{os.pathsep}{shared}/", "*"):
        done = run(ROOT_UID, "render", "blueprints", "--stdout", cwd=repo, MPIGEN_SAFE_DIRECTORIES=trusted)
        assert kubectl_images(done) == {PLANTED}, trusted
    done = run(ROOT_UID, "render", "blueprints", "--stdout", "-v", cwd=repo, MPIGEN_SAFE_DIRECTORIES=str(shared))
    assert done.stderr.decode().splitlines() == [
        f"mpigen: using {shared}/mpigen.yaml, owned by nobody (uid 65534), not by you (root), trusted by "
        f"MPIGEN_SAFE_DIRECTORIES={shared} (the paths in it and in the messages are relative to {shared})"]
    # Naming the working folder, or a relative path, trusts nothing: the word names the file's folder.
    for untrusted in (str(repo), os.path.relpath(shared, repo)):
        done = run(ROOT_UID, "validate", "blueprints", "-v", cwd=repo, MPIGEN_SAFE_DIRECTORIES=untrusted)
        lines = refused(done, untrusted)
        assert lines[0] == (f"mpigen: not using {shared}/mpigen.yaml: owned by nobody (uid 65534), not by you "
                            "(root), and MPIGEN_SAFE_DIRECTORIES does not name its folder")
        assert lines[1].startswith(f"error: {shared}/mpigen.yaml: owned by nobody") and len(lines) == 2
        assert f'(export MPIGEN_SAFE_DIRECTORIES="$MPIGEN_SAFE_DIRECTORIES":{shared})' in lines[1]


def test_nobody_is_refused_root_s_mpigen_yaml_above_its_folder(shared):
    plant(shared, ROOT_UID)
    mine = repository(shared / "mine", NOBODY)
    before = snapshot(shared)
    for args in (("render", "blueprints", "--stdout"), ("render", "blueprints", "-o", "out"), ("check",)):
        (line,) = refused(run(NOBODY, *args, cwd=mine), " ".join(args))
        assert line.startswith(f"error: {shared}/mpigen.yaml: owned by root (uid 0), not by you (nobody): mpigen "
                               "uses another user's mpigen.yaml only when you say it is safe")
    assert snapshot(shared) == before
    done = run(NOBODY, "render", "blueprints", "--stdout", cwd=mine, MPIGEN_SAFE_DIRECTORIES=str(shared))
    assert kubectl_images(done) == {PLANTED}


def test_the_user_s_own_mpigen_yaml_is_used_as_before(shared):
    """The nearest mpigen.yaml is the user's own: the other user's above it is never looked at."""
    plant(shared, NOBODY)
    repo = repository(shared / "repo", ROOT_UID, image=MINE)
    done = run(ROOT_UID, "render", "--stdout", "-v", cwd=repo / "blueprints")
    assert kubectl_images(done) == {MINE}
    assert done.stderr.decode() == (f"mpigen: using {repo}/mpigen.yaml (the paths in it and in the messages are "
                                    f"relative to {repo})\n")
    os.chown(shared / "mpigen.yaml", ROOT_UID, ROOT_UID)
    mine = repository(shared / "mine", NOBODY, image=MINE)
    assert kubectl_images(run(NOBODY, "render", "--stdout", cwd=mine / "blueprints")) == {MINE}
    assert run(NOBODY, "render", cwd=mine).returncode == 0 and (mine / "rendered" / "kustomization.yaml").exists()


def test_the_user_s_file_in_another_user_s_repository_folder_is_refused_too(shared):
    """git judges the repository's folder as well as its files: the folder's owner may put
    anything beside the file, and replace it."""
    team = repository(shared / "team", NOBODY, image=MINE)
    os.chown(team / "mpigen.yaml", ROOT_UID, ROOT_UID)
    (line,) = refused(run(ROOT_UID, "validate", cwd=team), "validate")
    assert line == (f"error: {team}/mpigen.yaml: in a folder owned by nobody (uid 65534), not by you (root): mpigen "
                    "uses another user's mpigen.yaml only when you say it is safe, as git does a repository; if you "
                    f"trust it, add its folder to MPIGEN_SAFE_DIRECTORIES (export MPIGEN_SAFE_DIRECTORIES={team}), "
                    "else work in a copy of your own")
    done = run(ROOT_UID, "render", "--stdout", cwd=team, MPIGEN_SAFE_DIRECTORIES=str(team))
    assert kubectl_images(done) == {MINE}


def test_an_overlay_kept_below_another_user_s_mpigen_yaml_names_no_base_from_it(shared, tmp_path):
    """A bare base name of an overlay kept outside overlays/ is looked up beside the nearest
    mpigen.yaml above it: another user's decides nothing without the user's word."""
    plant(shared, NOBODY)
    write(shared / "envs" / "dev" / "overlay.yaml", OVERLAY_HEAD + "bases: [gpu]\n")
    write(shared / "overlays" / "gpu" / "overlay.yaml", OVERLAY_HEAD + "namespace: planted\n")
    repo = repository(tmp_path / "repo", ROOT_UID, image=MINE)
    done = run(ROOT_UID, "render", "blueprints", "--overlay", f"{shared}/envs/dev", "--stdout", cwd=repo)
    (line,) = refused(done, "overlay")
    assert line.startswith(f"error: {shared}/mpigen.yaml: owned by nobody (uid 65534), not by you (root): ")
    done = run(ROOT_UID, "render", "blueprints", "--overlay", f"{shared}/envs/dev", "--stdout", cwd=repo,
               MPIGEN_SAFE_DIRECTORIES=str(shared))
    assert done.returncode == 0 and {o["metadata"]["namespace"] for o in yaml.safe_load_all(done.stdout)} == {"planted"}


# Root under sudo, as git's documentation of safe.directory states: root's own repositories,
# and those of the uid in SUDO_UID; a non-root user's SUDO_UID counts for nothing.
SUDO_CASES = [  # (who runs, SUDO_UID, owner of the repository folder and its mpigen.yaml, used)
    (ROOT_UID, None, ROOT_UID, True),
    (ROOT_UID, None, NOBODY, False),
    (ROOT_UID, str(NOBODY), NOBODY, True),  # `sudo mpigen` in the user's own repository
    (ROOT_UID, str(NOBODY), ROOT_UID, True),  # "in addition to the id from 'root'"
    (ROOT_UID, str(NOBODY), OTHER, False),
    (ROOT_UID, "nobody", NOBODY, False),  # not a uid: ignored
    (NOBODY, "0", ROOT_UID, False),
    (NOBODY, str(NOBODY), NOBODY, True),
]


@pytest.mark.parametrize(("runner", "sudo_uid", "owner", "used"), SUDO_CASES)
def test_a_run_as_root_by_sudo_is_judged_as_git_judges_it(shared, runner, sudo_uid, owner, used):
    repo = repository(shared / "repo", ROOT_UID, image=MINE)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    chown_tree(repo, owner, owner)
    env = {} if sudo_uid is None else {"SUDO_UID": sudo_uid}
    done = run(runner, "render", "--stdout", cwd=repo, **env)
    if used:
        assert kubectl_images(done) == {MINE}
    else:
        (line,) = refused(done, f"{runner} {sudo_uid} {owner}")
        assert line.startswith(f"error: {repo}/mpigen.yaml: owned by ")
    if _git_follows_the_documented_rule():
        assert _git_opens(repo, runner, env, shared) == used


def _git_opens(shared_repository: Path, runner: int, env: dict, home: Path) -> bool:
    """Whether git (with no configuration of the user's or the system's) opens the repository
    for the same user in the same environment."""
    prefix = as_user(runner) if runner != ROOT_UID else ()
    environ = {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, **env}
    done = subprocess.run([*prefix, "git", "rev-parse", "--git-dir"], cwd=shared_repository, env=environ, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 or "dubious ownership" in done.stderr, done.stderr
    return done.returncode == 0


def _git_follows_the_documented_rule() -> bool:
    """git 2.38 and later trust, for root run by sudo, both root's and SUDO_UID's repositories."""
    found = re.match(r"git version (\d+)\.(\d+)", subprocess.run(["git", "--version"], capture_output=True,
                                                                 text=True).stdout)
    return found is not None and (int(found[1]), int(found[2])) >= (2, 38)


def test_the_messages_docs_cli_md_shows_are_what_mpigen_prints(shared):
    """docs/cli.md's example (bo's file in /tmp, ana's run) from the same run here (nobody's
    file in the shared folder, root's run), names and folders put back."""
    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("### Another user's mpigen.yaml"):text.index("## mpigen render")]
    (error_line,), (refused_line, trusted_line) = [block.splitlines() for block in
                                                   re.findall(r"```\n(.*?)\n```", section, re.S)]
    team = repository(shared / "team", NOBODY, image=MINE)
    plant(shared, NOBODY)
    repo = repository(shared / "repo", ROOT_UID)

    def shown(done: subprocess.CompletedProcess) -> list[str]:
        lines = done.stderr.decode().replace(str(team), "/srv/team").replace(str(shared), "/tmp")
        return lines.replace("nobody (uid 65534)", "bo (uid 1001)").replace("(root)", "(ana)").splitlines()

    assert shown(run(ROOT_UID, "validate", "blueprints", "-v", cwd=repo)) == [refused_line, error_line]
    done = run(ROOT_UID, "validate", "-v", cwd=team, MPIGEN_SAFE_DIRECTORIES=str(team))
    assert done.returncode == 0 and shown(done)[0] == trusted_line
