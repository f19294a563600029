"""Proof that the MPI Operator's v2beta1 examples, imported once, run on the jobset and trainjob
targets too (test_e2e_mpijob.py runs them on mpijob): each of
tests/support/fixtures/mpi-operator-v2beta1/ (kubeflow/mpi-operator@caa3c47) imported by
`mpigen import`, rendered with `--target jobset` and `--target trainjob`, and run in the
pretend JobSet cluster (jobset_cluster.py) and the pretend Trainer (trainjob_cluster.py,
tests/support/e2e/trainer) with the examples' images (example_pods.py, operator_images.py:
mpiuser uid 1000, pi.cc compiled with the image's mpic++, Intel MPI's mpirun as Hydra, the
Horovod programs as allreduce.py).

The pi examples run both roles as uid 1000, their workers `sshd -De -f
/home/mpiuser/.sshd_config`. Those targets run mpigen's own sshd (docs/ssh.md "Non-root sshd
on each target"), whose key the kubelet mounts root's and group-readable: so render refuses the
imported blueprint, whose MPIJob sets no fsGroup (the operator mounts its key readable by
every user), and for MPICH and Intel MPI its kept launcherCommand (`mpirun -n 2 ...`, whose
proxies would call the launcher by a host name the other pods cannot resolve), until the user
makes the edits docs/migrate.md section 6 gives (migrate_edit); it warns that the imported
spec.ssh.sshdConfig is the mpijob target's. Then every worker's sshd is Ready and runs as uid
1000, and the launcher's rendered mpirun, unchanged, runs pi on every worker, which prints
its estimate; exit 0. The Horovod examples (root) render unedited and run the same way.

Needs what test_e2e_jobset.py needs: skipped with the reason elsewhere, but never under CI.
Modelled rather than real: as in test_e2e_jobset.py and test_e2e_mpijob.py.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest
import yaml

from tests.support.command_line import run_mpigen
from tests.support.e2e.harness import (MPICH, NON_ROOT, assert_left_nothing, image_env, imported_example, missing,
                                       missing_for_ssh, rendered_objects, require)
from tests.support.e2e.image import command_of, launch_helpers
from tests.support.e2e.readiness import wait_ready
from tests.support.paths import ROOT

MIGRATE = ROOT / "docs" / "migrate.md"
EXAMPLES = {"pi.yaml": "OpenMPI", "pi-mpich.yaml": "MPICH", "pi-intel.yaml": "Intel",
            "tensorflow-benchmarks.yaml": "OpenMPI", "tensorflow-mnist.yaml": "OpenMPI"}
MPI_OF = {"OpenMPI": "OpenMPI", "MPICH": "MPICH", "Intel": "MPICH"}  # whose MPI the image's model runs
WORKERS_JOB = {"jobset": "worker", "trainjob": "node"}  # the replicated job of the workers
RANK = re.compile(r"^Rank (\d+) on host (\S+)$", re.M)
NO_BARE_LAUNCHER = ("error: spec.launcherCommand: {mpi}'s proxies on the workers connect back to the launcher by its "
                    "bare host name, which the other pods of a --target {target} job cannot resolve")
SSHD_CONFIG = "warning: spec.ssh.sshdConfig is for --target mpijob; --target {target} runs sshd with its own"
NO_FSGROUP = ("error: spec.podTemplatePatch.{role}.container.securityContext.runAsUser: the user of the {who} is "
              "not root, and cannot read the SSH key that --target {target} mounts as root's")


@pytest.fixture(scope="module")
def machine():
    require(missing() or missing_for_ssh(), "end-to-end run of the operator's examples on jobset and trainjob")


@pytest.fixture
def cluster_for(tmp_path, machine):
    from tests.support.e2e.example_pods import ExampleJobSetCluster, ExampleTrainJobCluster
    from tests.support.e2e.trainjob_cluster import expand_rendered

    made = []

    def build(target: str, objects: list[dict], mpi: str, program: str):
        kind = ExampleJobSetCluster if target == "jobset" else ExampleTrainJobCluster
        if target == "trainjob":
            objects = expand_rendered(objects)[1]
        cluster = kind(tmp_path / "cluster", objects, image_env=image_env(MPI_OF[mpi]), helpers=launch_helpers(MPICH),
                       program=program)
        (tmp_path / "cluster").mkdir()
        made.append(cluster)
        cluster.start(ready_timeout=30)
        return cluster

    yield build
    for cluster in made:
        assert_left_nothing(cluster)


def render(tmp_path, target: str):
    return run_mpigen("render", "blueprint.yaml", "--target", target, "-o", f"out-{target}", cwd=tmp_path)


def migrate_edit(tmp_path, spec: dict) -> None:
    """The edits docs/migrate.md section 6 tells the user to make for jobset and trainjob, as it
    gives them, on tmp_path/blueprint.yaml: its sed line (fsGroup); for MPICH and Intel MPI,
    launcherCommand removed and its YAML (the program alone as command) in its place."""
    section = MIGRATE.read_text(encoding="utf-8").split("## 6. ", 1)[1].split("\n## ", 1)[0]
    sed = re.search(r"^sed -i '(.*)' pi/default/pi\.yaml$", section, re.M)[1]
    subprocess.run(["sed", "-i", sed, "blueprint.yaml"], cwd=tmp_path, check=True)
    blueprint = yaml.safe_load((tmp_path / "blueprint.yaml").read_text())
    assert blueprint["spec"]["security"]["fsGroup"] == 1000
    if spec["mpiImplementation"] != "OpenMPI":
        assert blueprint["spec"].pop("launcherCommand") == ["mpirun", "-n", "2", "/home/mpiuser/pi"]
        blueprint["spec"].update(yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S)[1])["spec"])
        (tmp_path / "blueprint.yaml").write_text(yaml.safe_dump(blueprint))


def rendered(tmp_path, example: str, target: str) -> tuple[dict, list[dict]]:
    """The example imported and rendered for `target`: a non-root pi example refused (exit 2,
    nothing written) until the edits docs/migrate.md gives, then rendered (exit 0) with the
    warning at spec.ssh.sshdConfig; (the blueprint, the rendered objects)."""
    blueprint = imported_example(tmp_path, example)
    if example.startswith("pi"):
        refused = render(tmp_path, target)
        stderr, mpi = refused.stderr.decode(), blueprint["spec"]["mpiImplementation"]
        assert refused.returncode == 2 and not (tmp_path / f"out-{target}").exists(), stderr
        for role, who in (("launcher", "launcher"), ("worker", "workers")):
            assert NO_FSGROUP.format(role=role, who=who, target=target) in stderr, stderr
        assert (NO_BARE_LAUNCHER.format(mpi=mpi, target=target) in stderr) == \
            (mpi != "OpenMPI"), stderr
        migrate_edit(tmp_path, blueprint["spec"])
    done = render(tmp_path, target)
    assert done.returncode == 0, done.stderr.decode()
    assert (SSHD_CONFIG.format(target=target) in done.stderr.decode()) == example.startswith("pi"), done.stderr
    return blueprint, rendered_objects(tmp_path / f"out-{target}")


def horovod_program(blueprint: dict, target: str) -> str:
    """allreduce.py's arguments for the Horovod examples: every rank on its worker's slots, the
    workers named as the JobSet names its pods' hosts (<jobset>-<replicatedJob>-<job index>-<pod
    index>: kubernetes-sigs/jobset docs/concepts/README.md, `pytorch-workers-0-0`; the Trainer's
    JobSet is named after the TrainJob)."""
    spec, name = blueprint["spec"], blueprint["metadata"]["name"]
    hosts = (f"{name}-{WORKERS_JOB[target]}-0-{i}:{spec['slotsPerWorker']}" for i in range(spec["workers"]))
    return f"{spec['workers'] * spec['slotsPerWorker']} " + ",".join(hosts)


@pytest.mark.parametrize("target", ["jobset", "trainjob"])
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_the_imported_example_runs_on_the_ssh_target(tmp_path, cluster_for, example, target):
    blueprint, objects = rendered(tmp_path, example, target)
    pi = example.startswith("pi")
    cluster = cluster_for(target, objects, EXAMPLES[example], "" if pi else horovod_program(blueprint, target))
    user, uid = ("mpiuser", str(NON_ROOT)) if pi else ("root", "0")
    deadline = time.monotonic() + 10
    for pod in cluster.workers():  # Ready (the launcher's dependsOn waited for it), as the example's user
        assert wait_ready(pod, pod.container, deadline), cluster.logs(pod)
        assert cluster.sshd_status(pod)["Uid"].split()[:2] == [uid, uid]  # real and effective
    done = cluster.run_launcher(command_of(cluster.launcher().container), timeout=90)
    assert done.returncode == 0, f"mpirun exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    if pi:  # pi.cc: a line per rank with MPI_Get_processor_name, then rank 0's estimate
        assert sorted(host for _, host in RANK.findall(done.stdout)) == sorted(p.hostname for p in cluster.workers())
        assert re.search(r"^pi is approximately 3\.1[0-9]+$", done.stdout, re.M), done.stdout
    else:  # allreduce.py checked every worker's slots and the sum
        assert '"size": 2' in done.stdout, done.stdout
    for pod in cluster.workers():  # the ranks' daemons came through each worker's sshd, with the run's key
        assert f"Accepted publickey for {user}" in cluster.logs(pod), cluster.logs(pod)
