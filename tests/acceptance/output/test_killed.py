"""`render -o DIR` killed with kill -9 in its write phase, or run twice at once: DIR holds
exactly the old state or the complete new one, and the next run cleans up.

The machine's facts come from the machine: a user who may not write (setpriv to nobody),
a full disk (a small tmpfs), an output folder that is a mount point (a tmpfs mounted on
it), a kill -9 in the middle of the write, two renders at once. Tests that need root or
mount skip with the reason, except under CI=true, where they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.command_line import MPIGEN, run_mpigen
from tests.support.output_machine import assert_index_lists_exactly_its_files, blueprints, files_of, leftovers, tmpfs
from tests.support.paths import ROOT


# --- killed and concurrent runs ------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Path, dict]:
    """A repository of 500 generated blueprints (bench/; 3,200 files) in two versions that differ in
    every workload (blueprints-old/ and blueprints-new/, one of them renamed to
    blueprints/ when used), and the output folder of each, as rendered into a new folder."""
    return two_versions(tmp_path_factory.mktemp("big"), sorted)


def two_versions(root: Path, changed) -> tuple[Path, dict]:
    """500 generated blueprints in `root` (blueprints-old/), a copy (blueprints-new/) whose
    `changed(files)` have another image, and the output folder of each version."""
    if str(ROOT / "bench") not in sys.path:
        sys.path.insert(0, str(ROOT / "bench"))
    from bench import generate

    generate(root, 500, seed=3)
    (root / "blueprints").rename(root / "blueprints-old")
    shutil.copytree(root / "blueprints-old", root / "blueprints-new")
    for path in changed(sorted((root / "blueprints-new").glob("*.yaml"))):
        path.write_text(path.read_text().replace("image: ", "image: mirror.example.com/", 1))
    states = {}
    for version in ("old", "new"):
        use(root, version)
        assert start(root, f"expected-{version}").wait() == 0
        states[version] = files_of(root / f"expected-{version}")
    return root, states


def use(root: Path, version: str) -> None:
    """Make blueprints/ the `version` of the blueprints (the sources named in the output
    stay blueprints/...)."""
    if (root / "blueprints").exists():
        other = "new" if (root / "blueprints-old").exists() else "old"
        (root / "blueprints").rename(root / f"blueprints-{other}")
    (root / f"blueprints-{version}").rename(root / "blueprints")


def start(root: Path, out: str) -> subprocess.Popen:
    return subprocess.Popen([*MPIGEN, "render", "blueprints", "--overlay", "dev", "-o", out],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def kill_in_write_phase(root: Path, out: Path, delay: float | None) -> float:
    """Start a render into `out`, wait until its staging folder (beside or inside `out`)
    appears, wait `delay` more, kill -9 (None: let it finish). Returns how long it ran
    after the staging folder appeared (0 when it was killed)."""
    process = start(root, out.name)
    mine = (f".{out.name}.mpigen-{process.pid}-", f".mpigen-stage-{process.pid}-")
    while process.poll() is None and not [name for name in leftovers(out) if name.startswith(mine)]:
        time.sleep(0.001)
    staged = time.monotonic()
    if delay is None:
        assert process.wait() == 0
        return time.monotonic() - staged
    time.sleep(delay)
    killed = process.poll() is None
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return 0.0 if killed else time.monotonic() - staged


def kill_repeatedly(root: Path, out: Path, states: dict, repair) -> list[str]:
    """Render towards the other state than DIR holds, killed at fractions of the write
    phase's length (from its staging folder on); after each kill (and `repair`), DIR
    must be exactly one of the two states."""
    use(root, "old")
    assert start(root, out.name).wait() == 0
    use(root, "new")
    phase = kill_in_write_phase(root, out, None)  # how long writing takes here
    current, outcomes = "new", []
    for delay in [phase * f for f in (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)]:
        target = "new" if current == "old" else "old"
        use(root, target)
        killed = not kill_in_write_phase(root, out, delay)
        mixed = files_of(out) not in states.values()
        repair()
        state = files_of(out)
        assert state in states.values(), f"killed {delay} s into the write: neither the old nor the new state"
        assert_index_lists_exactly_its_files(out)
        current = "old" if state == states["old"] else "new"
        outcomes.append(("target" if current == target else "previous") + (" (killed)" if killed else "") +
                        (" (leftovers repaired)" if mixed else ""))
    return [f"write phase {phase:.2f} s"] + outcomes


def test_a_render_killed_in_its_write_phase_leaves_the_old_or_the_new_state(big):
    root, states = big
    out = root / "out"
    outcomes = kill_repeatedly(root, out, states, lambda: None)
    use(root, "new")
    assert start(root, "out").wait() == 0  # the next run repairs what the killed ones left
    assert files_of(out) == states["new"] and leftovers(out) == []
    print("outcomes:", outcomes)


def test_a_render_into_a_new_folder_killed_while_its_workers_write_leaves_no_folder(big):
    """The workers write a new folder's files beside it as they render (a scratch folder of
    the run): killed at any point, there is no DIR or the complete new one, and the next
    run removes what the killed one left."""
    root, states = big
    use(root, "new")
    out = root / "fresh"
    phase = kill_in_write_phase(root, out, None)
    assert files_of(out) == states["new"] and leftovers(out) == []
    outcomes = []
    for delay in [phase * f for f in (0.0, 0.2, 0.4, 0.6, 0.8, 1.2)]:
        shutil.rmtree(out, ignore_errors=True)
        killed = not kill_in_write_phase(root, out, delay)
        assert not out.exists() or files_of(out) == states["new"], f"killed {delay} s in: a partial folder"
        outcomes.append(("none" if not out.exists() else "new") + (" (killed)" if killed else ""))
    assert start(root, out.name).wait() == 0
    assert files_of(out) == states["new"] and leftovers(out) == []
    print("outcomes:", outcomes)


def test_a_mount_point_whose_files_are_all_at_its_top(tmp_path):
    """The in-place write stages files in a folder of its own inside DIR; with no file in a
    sub-folder (mpigen.yaml's Argo CD Applications folder) nothing else creates it."""
    names = ["job-a", "job-b"]
    blueprints(tmp_path / "blueprints", names)
    config = ("apiVersion: mpigen.dev/v1alpha1\nkind: Config\nblueprints: [blueprints]\noutput: out\n"
              "gitops: argocd\nargocd: {{repoURL: 'https://git.example.com/ml.git', targetRevision: {rev}, "
              "applications: apps}}\n")
    with tmpfs(tmp_path / "apps", "1m") as apps:
        for rev in ("main", "dev"):
            (tmp_path / "mpigen.yaml").write_text(config.format(rev=rev))
            done = run_mpigen("render", cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            assert f"targetRevision: {rev}\n".encode() in (apps / "application-mpigen.yaml").read_bytes()
            assert leftovers(apps) == []
            assert_index_lists_exactly_its_files(apps)


def test_a_render_killed_while_renaming_into_a_mount_point_is_rolled_back(big):
    """In place, a kill leaves a mix until the next run, whose first step (recover_abandoned)
    rolls the staged files back, or forward when the index was renamed in already."""
    from mpigen.output.recovery import recover_abandoned

    root, states = big
    with tmpfs(root / "mounted", "256m") as out:
        outcomes = kill_repeatedly(root, out, states, lambda: recover_abandoned(out))
        assert leftovers(out) == []
        use(root, "new")
        assert start(root, "mounted").wait() == 0
        assert files_of(out) == states["new"]
    print("outcomes:", outcomes)


def test_two_renders_into_one_folder_end_in_one_complete_state(tmp_path):
    for name in ("a", "b"):
        blueprints(tmp_path / f"bp-{name}", [f"{name}-{i:03d}" for i in range(150)], namespace=f"team-{name}")
        assert run_mpigen("render", f"bp-{name}", "-o", f"ref-{name}", cwd=tmp_path).returncode == 0
    references = [files_of(tmp_path / "ref-a"), files_of(tmp_path / "ref-b")]
    for attempt in range(3):
        runs = [subprocess.Popen([*MPIGEN, "render", f"bp-{name}", "-o", "out"], cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for name in ("a", "b")]
        for run in runs:
            assert run.wait() == 0, run.stderr.read()
        assert files_of(tmp_path / "out") in references, f"attempt {attempt}: a mix of both renders"
        assert_index_lists_exactly_its_files(tmp_path / "out") and leftovers(tmp_path / "out") == []


@pytest.fixture(scope="module")
def one_changed(tmp_path_factory) -> tuple[Path, dict]:
    """The repository of `big` in two versions that differ in one blueprint: a change to a
    small part of the output folder, which is written in place (mpigen.output.commit)."""
    root, states = two_versions(tmp_path_factory.mktemp("one-changed"), lambda files: files[7:8])
    assert 0 < sum(states["old"].get(p) != b for p, b in states["new"].items()) < len(states["new"]) / 16
    return root, states


def test_a_small_change_killed_in_its_write_phase_is_written_in_place_and_repaired(one_changed):
    """A small change is renamed into DIR itself (DIR keeps its inode): a kill -9 in the
    instant of the renames leaves a mix, which the next run's first step rolls back (or
    forward, once the index is renamed in)."""
    from mpigen.output.recovery import recover_abandoned

    root, states = one_changed
    out = root / "out"
    outcomes = kill_repeatedly(root, out, states, lambda: recover_abandoned(out))
    folder = os.stat(out).st_ino
    use(root, "new")
    assert start(root, "out").wait() == 0
    assert files_of(out) == states["new"] and leftovers(out) == []
    assert os.stat(out).st_ino == folder  # written in place, never swapped
    print("outcomes:", outcomes)
