"""Proof that the `jobset` target's output runs: real MPI over real OpenSSH across pretend pods
(tests/support/e2e/jobset_cluster.py) started as the JobSet orders them.

The blueprint is rendered by the CLI (`--target jobset`); the cluster runs the rendered keygen
job for real (ssh-keygen in the job's image, then kubectl through the pretend API server under
the rendered Role), mounts the Secret it made into every worker, starts each worker's rendered
command (sshd.sh: the machine's /usr/sbin/sshd) under the rendered securityContext, and starts
the launcher once the workers are Ready. The launcher's rendered command runs unchanged except
for the program (tests/support/e2e/allreduce.py, which fails unless every worker runs exactly
its slots of ranks); mpirun reaches the workers only through what mpigen rendered: the
hostfile, ssh_config, the key and the launcher variables. Needs what test_e2e_mpi.py needs,
plus OpenSSH's server and client and a user with uid 1000: skipped with the reason elsewhere,
but never under CI (CI=true), which must run it.

Modelled rather than real (each said where it is modelled): cluster DNS, as /etc/hosts lines
from the search path (jobset_pods.py); the readiness probe, every 0.1 s (readiness.py); the
ServiceAccount token, an opaque string (secrets.py); the images, the machine's root with
overlays for Python, MPI's launch helpers and kubectl (image.py); the memory-backed emptyDir, a
folder; the JobSet's restart, only when a test asks (restart_job); and the wait for a worker that
never gets Ready, a timeout where the JobSet would wait on.
"""

from __future__ import annotations

import base64
import pwd
import re
import subprocess

import pytest

from tests.support.e2e.harness import (MPICH, NON_ROOT, assert_left_nothing, image_env, launch_command, missing,
                                       missing_for_ssh, render, require, result)
from tests.support.e2e.image import launch_helpers

KEY_SECRET_TYPE = "kubernetes.io/ssh-auth"
# sshd's line (at its default LogLevel INFO) for a client that offered no key it accepts and gave
# up; the readiness probe's connections end before authentication ("kex_exchange_identification").
REFUSED = re.compile(r"Connection closed by (authenticating user root )?[0-9.]+ port [0-9]+ \[preauth\]")
AS_USER = {"runAsUser": NON_ROOT, "fsGroup": NON_ROOT}
# Bits of the capabilities a root sshd is given (linux/capability.h).
SSHD_CAPS = {"KILL": 5, "SETGID": 6, "SETUID": 7, "SYS_CHROOT": 18, "AUDIT_WRITE": 29}


@pytest.fixture(scope="module")
def machine():
    require(missing() or missing_for_ssh(), "end-to-end JobSet test")


@pytest.fixture
def jobset_for(tmp_path, machine):
    from tests.support.e2e.jobset_cluster import JobSetCluster

    made = []

    def build(objects: list[dict], mpi: str = "OpenMPI", **start):
        cluster = JobSetCluster(tmp_path / "cluster", objects, image_env=image_env(mpi), helpers=launch_helpers(MPICH))
        (tmp_path / "cluster").mkdir()
        made.append(cluster)
        cluster.start(**start)
        return cluster

    build.made = made  # a test whose start() raises still sees what the cluster ran
    yield build
    for cluster in made:
        assert_left_nothing(cluster)


def rendered(tmp_path, workers: int = 2, slots: int = 1, mpi: str = "OpenMPI", **extra):
    return render(tmp_path, workers, slots, mpi, target="jobset", **extra)


def expected(blueprint: dict) -> list[str]:
    spec, name = blueprint["spec"], blueprint["metadata"]["name"]
    hosts = ",".join(f"{name}-worker-0-{i}:{spec['slotsPerWorker']}" for i in range(spec["workers"]))
    return [str(spec["workers"] * spec["slotsPerWorker"]), hosts]


def run(cluster, blueprint: dict, **launch) -> subprocess.CompletedProcess:
    return cluster.run_launcher(launch_command(blueprint, cluster.launcher().container, expected(blueprint)),
                                timeout=launch.pop("timeout", 60), **launch)


def secret_of(cluster, blueprint: dict) -> dict:
    meta = blueprint["metadata"]
    return cluster.store.get(meta.get("namespace", "default"), f"{meta['name']}-ssh")


@pytest.mark.parametrize("mpi,workers,slots,user", [
    ("OpenMPI", 2, 1, "root"), ("OpenMPI", 2, 1, "non-root"), ("OpenMPI", 3, 2, "root"),
    ("OpenMPI", 3, 2, "non-root"), ("MPICH", 2, 2, "root"), ("MPICH", 2, 2, "non-root")])
def test_rendered_mpirun_reaches_every_worker_over_ssh(tmp_path, jobset_for, mpi, workers, slots, user):
    security = AS_USER if user == "non-root" else {}
    blueprint, objects, _ = rendered(tmp_path, workers, slots, mpi, security=security)
    cluster = jobset_for(objects, mpi)
    seen = result(run(cluster, blueprint))

    assert seen["size"] == workers * slots
    hosts = sorted(p.hostname for p in cluster.workers())
    assert sorted({r["host"] for r in seen["ranks"]}) == hosts  # allreduce.py checked the slots per host
    uid = str(NON_ROOT if security else 0)
    assert {r["Uid"] for r in seen["ranks"]} == {uid}
    # The ranks' daemons came through each worker's sshd, which let in the run's key only.
    login = f"Accepted publickey for {pwd.getpwuid(int(uid)).pw_name}"
    assert all(login in cluster.logs(pod) for pod in cluster.workers()), [cluster.logs(p) for p in cluster.workers()]
    # A root sshd runs with the four capabilities the renderer adds, and nothing more.
    # The kubelet wrote the key root's, read-only; a non-root user reads it through fsGroup.
    key = (cluster.workers()[0].volume_dir("mpigen-ssh-key") / "ssh-privatekey").stat()
    assert (key.st_uid, key.st_gid, oct(key.st_mode & 0o777)) == ((0, NON_ROOT, "0o440") if security else
                                                                  (0, 0, "0o400"))
    mask = sum(1 << bit for bit in SSHD_CAPS.values()) if uid == "0" else 0
    assert [cluster.sshd_capabilities(pod) for pod in cluster.workers()] == [mask] * workers


def test_every_pod_resolves_every_other_by_its_jobset_names(tmp_path, jobset_for):
    """`<host>.<subdomain>` and the full name of every pod resolve in every pod (cluster DNS
    through the search path, modelled in jobset_pods.py); another pod's bare host name does not."""
    blueprint, objects, _ = rendered(tmp_path)
    cluster = jobset_for(objects)
    pods = list(cluster.pods.values())
    for pod in pods:
        for other in pods:
            for name in (f"{other.hostname}.{other.subdomain}",
                         f"{other.hostname}.{other.subdomain}.default.svc.cluster.local"):
                found = subprocess.run(cluster.argv(pod, ["getent", "hosts", name]), capture_output=True, text=True)
                assert found.stdout.split()[:1] == [other.ip], (pod.name, name, found)
            bare = subprocess.run(cluster.argv(pod, ["getent", "hosts", other.hostname]), capture_output=True)
            assert (bare.returncode == 0) == (other is pod), (pod.name, other.name)


def test_the_keygen_job_makes_the_key_through_the_rendered_role(tmp_path, jobset_for):
    """The default key strategy: the keygen job's kubectl deletes any old key and creates the
    Secret with its own token, authorized by the rendered Role; the Secret is the run's key,
    owned by the JobSet (its uid from the downward API), and is what the workers accept."""
    blueprint, objects, _ = rendered(tmp_path)
    cluster = jobset_for(objects)
    secret = secret_of(cluster, blueprint)
    assert secret["type"] == KEY_SECRET_TYPE
    owner = secret["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"]) == \
        ("JobSet", blueprint["metadata"]["name"], cluster.jobset()["metadata"]["uid"])
    assert [r["verb"] for r in cluster.requests] == ["delete-secret", "create"]
    keygen_account = next(o for o in objects if o["kind"] == "RoleBinding")["subjects"][0]["name"]
    assert {cluster.store.tokens[r["token"]] for r in cluster.requests} == {("default", keygen_account)}
    public = base64.b64decode(secret["data"]["ssh-publickey"]).decode()
    for pod in cluster.workers():  # what the kubelet wrote into each worker's volume
        assert (pod.volume_dir("mpigen-ssh-key") / "ssh-publickey").read_text() == public
    assert result(run(cluster, blueprint))["size"] == 2


def test_a_restarted_keygen_replaces_the_key(tmp_path, jobset_for):
    """A second attempt of the keygen job (the JobSet restarted) deletes the first key, which
    its Role allows by name, and creates a new one."""
    blueprint, objects, _ = rendered(tmp_path)
    cluster = jobset_for(objects)
    first = secret_of(cluster, blueprint)["data"]["ssh-privatekey"]
    keygen = next(name for name in cluster.jobs if name not in ("worker", "launcher"))
    for pod in cluster.restart_job(keygen):
        assert cluster.wait_pod(pod, 60) is None
    assert "deleted" in "".join(cluster.logs(pod, "delete-old-key") for pod in cluster.jobs[keygen])
    assert cluster.store.log == [("delete", f"{blueprint['metadata']['name']}-ssh"),
                                 ("create", f"{blueprint['metadata']['name']}-ssh")] * 2
    assert secret_of(cluster, blueprint)["data"]["ssh-privatekey"] != first


def _without_create(rules: list[dict], name: str) -> list[dict]:
    return [r for r in rules if "create" not in r["verbs"]]


def _create_by_name(rules: list[dict], name: str) -> list[dict]:
    """A create rule limited to the Secret's name, which Kubernetes never matches (a create
    request has no name when it is authorized)."""
    return [{**r, "resourceNames": [name]} if "create" in r["verbs"] else r for r in rules]


def _delete_other(rules: list[dict], name: str) -> list[dict]:
    return [{**r, "resourceNames": [f"{name}-other"]} if "delete" in r["verbs"] else r for r in rules]


@pytest.mark.parametrize("change,refusal", [
    (_without_create, 'cannot create resource "secrets"'), (_create_by_name, 'cannot create resource "secrets"'),
    (_delete_other, 'secrets "{name}" is forbidden: User "system:serviceaccount:default:{keygen}" cannot delete')],
    ids=["no-create-rule", "create-rule-by-name", "delete-rule-other-name"])
def test_without_its_rule_the_keygen_fails_and_no_worker_starts(tmp_path, jobset_for, change, refusal):
    blueprint, objects, _ = rendered(tmp_path)
    role = next(o for o in objects if o["kind"] == "Role")
    name = f"{blueprint['metadata']['name']}-ssh"
    role["rules"] = change(role["rules"], name)
    from tests.support.e2e.jobset_cluster import JobSetFailed

    with pytest.raises(JobSetFailed, match=re.escape(refusal.format(name=name, keygen=role["metadata"]["name"]))):
        jobset_for(objects)
    cluster = jobset_for.made[-1]
    assert secret_of(cluster, blueprint) is None
    assert not any("-worker-" in pod or "-launcher-" in pod for pod in cluster.pods)


def other_public_key(tmp_path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ecdsa", "-b", "521", "-N", "", "-f", str(tmp_path / "other")],
                   check=True)
    return (tmp_path / "other.pub").read_text()


def test_a_key_the_workers_do_not_accept_is_refused(tmp_path, jobset_for):
    """The Secret's public key replaced by another key's before the workers start: their sshd
    refuses the launcher's key, and mpirun fails."""
    blueprint, objects, _ = rendered(tmp_path)
    other = other_public_key(tmp_path)

    def replace_key(cluster):
        secret_of(cluster, blueprint)["data"]["ssh-publickey"] = base64.b64encode(other.encode()).decode()

    cluster = jobset_for(objects, before={"worker": replace_key})
    done = run(cluster, blueprint)
    assert done.returncode != 0
    assert "Permission denied (publickey" in done.stderr, done.stderr
    assert not any("Accepted publickey" in cluster.logs(pod) for pod in cluster.workers())
    env = {e["name"]: e.get("value", "") for e in cluster.launcher().container["env"]}
    for pod in cluster.workers():  # mpirun gave up at the first refusal; each worker refuses alike
        done = cluster.run_launcher(["ssh", *env["PRTE_MCA_plm_ssh_args"].split(), f"{pod.hostname}.{pod.subdomain}",
                                     "true"])
        assert done.returncode == 255 and "Permission denied (publickey" in done.stderr, done.stderr
        assert cluster.wait_log(pod, REFUSED), cluster.logs(pod)  # sshd logs once the client has gone


@pytest.mark.parametrize("attempts", ["rendered", "removed"])
def test_the_launcher_retries_a_worker_whose_sshd_comes_up_late(tmp_path, jobset_for, attempts):
    """Without waitForWorkers the launcher starts with the workers; one worker's sshd starts
    2 s later. ssh's ConnectionAttempts (rendered ssh_config) keeps trying, and the run
    succeeds; with that line removed, the same run fails on the refused connection."""
    blueprint, objects, _ = rendered(tmp_path, launcher={"waitForWorkers": False})
    jobset = next(o for o in objects if o["kind"] == "JobSet")
    assert all("dependsOn" not in rj for rj in jobset["spec"]["replicatedJobs"] if rj["name"] == "launcher")
    if attempts == "removed":
        config = next(o for o in objects if o["kind"] == "ConfigMap" and "ssh_config" in o["data"])
        assert "ConnectionAttempts 10\n" in config["data"]["ssh_config"]
        config["data"]["ssh_config"] = config["data"]["ssh_config"].replace("ConnectionAttempts 10\n", "")
    late = f"{blueprint['metadata']['name']}-worker-0-1"
    cluster = jobset_for(objects, delays={late: 2})
    late_pod = next(p for p in cluster.workers() if p.hostname == late)
    assert cluster.running[late_pod.name] == []  # its sshd is not started when the launcher is
    done = run(cluster, blueprint)
    if attempts == "removed":
        assert done.returncode != 0 and "Connection refused" in done.stderr, done.stderr
        return
    seen = result(done)
    assert sorted({r["host"] for r in seen["ranks"]}) == sorted(p.hostname for p in cluster.workers())
    assert "Accepted publickey" in cluster.logs(late_pod)


def test_a_hostfile_naming_a_missing_pod_fails_the_run(tmp_path, jobset_for):
    blueprint, objects, _ = rendered(tmp_path)
    config = next(o for o in objects if o["kind"] == "ConfigMap" and "hostfile" in o["data"])
    config["data"]["hostfile"] = config["data"]["hostfile"].replace("-worker-0-1.", "-worker-0-7.")
    cluster = jobset_for(objects)
    done = run(cluster, blueprint)
    assert done.returncode != 0
    assert "Could not resolve hostname" in done.stderr, done.stderr


def test_a_worker_that_never_starts_sshd_holds_the_launcher(tmp_path, jobset_for):
    """With waitForWorkers the launcher waits for every worker to be Ready: it is never created."""
    blueprint, objects, _ = rendered(tmp_path)
    from tests.support.e2e.jobset_cluster import NotReady

    with pytest.raises(NotReady, match="worker-0-1"):
        jobset_for(objects, delays={f"{blueprint['metadata']['name']}-worker-0-1": None}, ready_timeout=3)


def test_a_worker_that_never_starts_sshd_fails_a_launcher_that_does_not_wait(tmp_path, jobset_for):
    """Without waitForWorkers: ssh gives up after its ConnectionAttempts, and mpirun fails."""
    blueprint, objects, _ = rendered(tmp_path, launcher={"waitForWorkers": False})
    cluster = jobset_for(objects, delays={f"{blueprint['metadata']['name']}-worker-0-1": None})
    done = run(cluster, blueprint)
    assert done.returncode != 0
    assert "Connection refused" in done.stderr, done.stderr


def test_without_the_ssh_args_variable_open_mpi_5_fails(tmp_path, jobset_for):
    """Without PRTE_MCA_plm_ssh_args ssh does not read the rendered ssh_config (its port, key and
    retries): Open MPI 5 cannot start its daemons. OMPI_MCA_plm_rsh_args alone, the operator's
    name, is not read by Open MPI 5's launcher (PRRTE)."""
    blueprint, objects, _ = rendered(tmp_path)
    cluster = jobset_for(objects)
    done = run(cluster, blueprint, drop_env=("PRTE_MCA_plm_ssh_args",))
    assert done.returncode != 0, done.stdout
    assert "port 22: Connection refused" in done.stderr, done.stderr


def test_a_disrupted_worker_restarts_the_job_uncounted_and_a_fail_fast_exit_code_ends_it(tmp_path, jobset_for):
    """The worked example of docs/blueprints.md (exit code 3 fails fast, disruptions are free,
    3 retries for the rest) under the pretend Job and JobSet controllers
    (tests/support/e2e/jobset_failures.py): a worker marked DisruptionTarget restarts the
    JobSet without using the budget, its Jobs recreated under the same names (the same run:
    the hostfile still holds); then a worker whose program exits with 3 fails the JobSet,
    without a restart."""
    from tests.support.e2e.jobset_failures import JobSetStatus, fail_pod, recreate

    policy = {"cleanPodPolicy": "Running", "backoffLimit": 3, "failurePolicy": {"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3]}}]}}
    blueprint, objects, _ = rendered(tmp_path, runPolicy=policy)
    cluster = jobset_for(objects)
    name = blueprint["metadata"]["name"]
    status = fail_pod(cluster, "worker", cluster.workers()[0], JobSetStatus(), disrupted=True)
    assert (status.phase, status.restarts, status.restarts_counted, status.rule) == ("Restarting", 1, 0, "disruption")
    recreate(cluster)
    workers = cluster.workers()
    assert [pod.hostname for pod in workers] == [f"{name}-worker-0-{i}" for i in range(2)]
    assert {pod.labels["jobset.sigs.k8s.io/restart-attempt"] for pod in workers} == {"1"}
    status = fail_pod(cluster, "worker", workers[1], status, code=3)
    assert (status.phase, status.restarts, status.restarts_counted, status.rule) == ("Failed", 1, 0, "rule1")


def test_the_failure_policy_example_counts_a_crash_not_a_preemption_and_ends_on_nccls_code(tmp_path, jobset_for):
    """blueprints/failure-policy.yaml's runPolicy under the pretend Job and JobSet controllers:
    a worker whose program exits with 1 restarts the JobSet counted; a preempted worker restarts
    it uncounted; a worker whose program exits with 76 (the script's NCCL code) ends it."""
    import yaml

    from tests.support.e2e.jobset_failures import JobSetStatus, fail_pod, recreate
    from tests.support.paths import BLUEPRINTS

    policy = yaml.safe_load((BLUEPRINTS / "failure-policy.yaml").read_text())["spec"]["runPolicy"]
    _, objects, _ = rendered(tmp_path, runPolicy=policy)
    cluster = jobset_for(objects)
    status = fail_pod(cluster, "worker", cluster.workers()[0], JobSetStatus(), code=1)
    assert (status.phase, status.restarts, status.restarts_counted, status.rule) == ("Restarting", 1, 1, None)
    recreate(cluster)
    status = fail_pod(cluster, "worker", cluster.workers()[0], status, disrupted=True)
    assert (status.phase, status.restarts, status.restarts_counted, status.rule) == ("Restarting", 2, 1, "disruption")
    recreate(cluster)
    status = fail_pod(cluster, "worker", cluster.workers()[1], status, code=76)
    assert (status.phase, status.restarts, status.restarts_counted, status.rule) == ("Failed", 2, 1, "rule2")
