"""A change to a library whose data reaches the output invalidates what the cache holds: the
MPIJob CRD of --with-crd is made from the pod schema kubernetes-validate ships, so a run after
that package changed (here: another build of it, first on sys.path, whose PodTemplateSpec
differs) renders and checks what a run without the cache does."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from mpigen.kube.versions import schema_root
from tests.support.blueprints import blueprint_text
from tests.support.command_line import run_mpigen

CRD = "_cluster/customresourcedefinition-mpijobs.kubeflow.org.yaml"


def another_build(root: Path) -> Path:
    """kubernetes-validate again, in `root` (to go first on PYTHONPATH), whose v1.30 pod template
    schema says something else, with a RECORD of its own (as pip writes one for any build)."""
    real = schema_root()
    package = root / "kubernetes_validate"
    schemas = package / "kubernetes-json-schema"
    schemas.mkdir(parents=True)
    for module in real.parent.glob("*.py"):
        shutil.copy(module, package / module.name)
    for version in real.iterdir():  # the schemas are large: linked, but for the one that changes
        if version.name != "v1.30.0-local":
            (schemas / version.name).symlink_to(version)
            continue
        (schemas / version.name).mkdir()
        for file in version.iterdir():
            (schemas / version.name / file.name).symlink_to(file)
    changed = schemas / "v1.30.0-local" / "podtemplatespec-v1.json"
    text = changed.read_text().replace("Specification of the desired behavior of the pod.",
                                       "What the pod should be (another build of the schemas).")
    changed.unlink()
    changed.write_text(text)
    record = next(real.parent.parent.glob("kubernetes_validate-*.dist-info"))
    shutil.copytree(record, root / record.name)
    with open(root / record.name / "RECORD", "a") as handle:
        handle.write("kubernetes_validate/kubernetes-json-schema/v1.30.0-local/podtemplatespec-v1.json,sha256=x,1\n")
    return root


def test_a_changed_schema_library_is_rendered_and_checked_as_without_the_cache(tmp_path):
    repo = tmp_path / "repo"
    (repo / "bp").mkdir(parents=True)
    (repo / "bp" / "job.yaml").write_text(blueprint_text("job"))
    args = ("bp", "-o", "out", "--target", "mpijob", "--with-crd")
    assert run_mpigen("render", *args, cwd=repo).returncode == 0
    before = (repo / "out" / CRD).read_bytes()
    assert run_mpigen("check", *args, cwd=repo).returncode == 0  # the cache and the run's record hold it now

    changed = {**os.environ, "PYTHONPATH": str(another_build(tmp_path / "site"))}
    uncached = run_mpigen("check", *args, "--no-cache", cwd=repo, env=changed)
    assert uncached.returncode == 1 and b"What the pod should be" in uncached.stdout  # it reaches the output
    cached = run_mpigen("check", *args, cwd=repo, env=changed)
    assert (cached.returncode, cached.stdout, cached.stderr) == (1, uncached.stdout, uncached.stderr)

    assert run_mpigen("render", *args, cwd=repo, env=changed).returncode == 0
    after = (repo / "out" / CRD).read_bytes()
    assert after != before and b"What the pod should be" in after
    assert run_mpigen("check", *args, "--no-cache", cwd=repo, env=changed).returncode == 0
