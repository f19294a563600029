"""`mpigen import` is lossless or says what it loses (issue 15, defects 8, 9 and 10).

The proof is a round trip against the operator, modelled from shared/reference/
mpi-operator.md in tests/support/operator_model.py: a kubeflow.org/v1alpha2 MPIJob imported and
rendered (static target) gives the objects the v1alpha2 controller creates for it; a v1
or v2beta1 MPIJob imported and rendered as an MPIJob of its own API gives it back with
its operator's defaults; both outside the contract's exceptions. Whatever a blueprint
cannot carry is a warning at its line (an error with --strict); an MPIJob the operator,
the API server or mpigen would refuse is an error at its line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import by_kind, pos, run_mpigen
from tests.support.operator_model import comparable, controller_objects, defaulted, normal

V1ALPHA2, V1, V2BETA1 = "kubeflow.org/v1alpha2", "kubeflow.org/v1", "kubeflow.org/v2beta1"


def imported(text: str, strict: bool = False):
    from mpigen.review.importer.document import import_document
    from mpigen.load.documents import parse

    (doc,) = parse(text, "mpijob.yaml")
    result = import_document(doc, strict)
    return result.blueprint, doc.problems + result.diagnostics


def render_blueprint(blueprint: dict, **options) -> dict:
    """{kind: object} of the blueprint as `mpigen render` renders it (its lifecycle included)."""
    from mpigen.compile.blueprint import compile_blueprint
    from mpigen.emit.yaml import dump_object
    from mpigen.load.documents import parse
    from mpigen.render.targets import Lifecycle, Options, render_job
    from mpigen.validate.fields import validate_document

    (doc,) = parse(dump_object(blueprint), "imported.yaml")
    model, diagnostics = validate_document(doc)
    assert model is not None, [str(d) for d in diagnostics]
    spec = model.spec
    lifecycle = Lifecycle(spec.state, spec.run, spec.runPolicy.ttlSecondsAfterFinished)
    return by_kind(render_job(compile_blueprint(model), Options(**options), lifecycle))


def assert_round_trip(mpijob: dict) -> None:
    """No diagnostic, and the render of the blueprint is the operator's view of the MPIJob."""
    text = yaml.safe_dump(mpijob, sort_keys=False)
    blueprint, diagnostics = imported(text)
    assert [str(d) for d in diagnostics] == [], text
    if mpijob["apiVersion"] == V1ALPHA2:
        expected = controller_objects(mpijob)
        actual = render_blueprint(blueprint)
    else:
        expected = {"MPIJob": defaulted(mpijob)}
        actual = render_blueprint(blueprint, target="mpijob", mpijob_api=mpijob["apiVersion"])
    assert sorted(actual) == sorted(expected)
    for kind in expected:
        assert comparable(actual[kind], expected[kind], mpijob) == normal(expected[kind]), (kind, text)


def launchers(text: str, needle: str, sub: str | None = None) -> tuple[int, int]:
    """The position of needle (of sub in it) in the launcher's part of an MPIJob text."""
    return pos(text[:text.index("    Worker:")], needle, sub)


def warned_at(text: str, *needles, strict: bool = False) -> list[str]:
    """The diagnostics of importing text, which must be exactly one warning (error with
    --strict) at each place: a needle, (needle, sub), or a (line, column); returns their
    messages."""
    blueprint, diagnostics = imported(text, strict)
    severity = "error" if strict else "warning"
    expected = sorted(n if isinstance(n, tuple) and isinstance(n[0], int) else
                      pos(text, *n) if isinstance(n, tuple) else pos(text, n) for n in needles)
    assert sorted((d.mark.line, d.mark.column) for d in diagnostics) == expected, [str(d) for d in diagnostics]
    assert all(d.severity == severity for d in diagnostics), [str(d) for d in diagnostics]
    assert (blueprint == {}) == strict
    return [d.message for d in diagnostics]


def refused_at(text: str, needle, sub=None) -> str:
    blueprint, diagnostics = imported(text)
    errors = [d for d in diagnostics if d.severity == "error"]
    assert blueprint == {} and errors, [str(d) for d in diagnostics]
    assert (errors[0].mark.line, errors[0].mark.column) == pos(text, needle, sub), [str(d) for d in diagnostics]
    return errors[0].message


def job(api: str = V1ALPHA2, launcher: str = "", worker: str = "", spec: str = "", workers: int = 2,
        launcher_container: str = "", worker_container: str = "") -> str:
    """An MPIJob as text, with extra lines at the places named (already indented)."""
    return f"""apiVersion: {api}
kind: MPIJob
metadata:
  name: train
spec:
{spec}  mpiReplicaSpecs:
    Launcher:
      replicas: 1
{launcher}      template:
        spec:
          containers:
          - name: mpi-launcher
            image: example.com/train:1
            command: [mpirun, -np, "{workers}", python, train.py]
{launcher_container}    Worker:
      replicas: {workers}
{worker}      template:
        spec:
          containers:
          - name: mpi-worker
            image: example.com/train:1
{worker_container}"""


# --- the cases of the issue, one by one --------------------------------------------------

LABELLED = job(launcher="", workers=2).replace(
    "      template:\n        spec:\n",
    "      template:\n        metadata:\n          labels: {team: vision, tier: gold}\n"
    "          annotations: {sidecar.istio.io/inject: \"false\"}\n        spec:\n")


def test_template_labels_and_annotations_round_trip():
    assert_round_trip(yaml.safe_load(LABELLED))
    assert_round_trip({**yaml.safe_load(LABELLED), "apiVersion": V2BETA1})


def test_a_label_of_one_template_only_is_reported_at_its_line():
    text = LABELLED.replace("labels: {team: vision, tier: gold}", "labels: {team: vision}", 1)
    (message,) = warned_at(text, ("tier: gold", "tier"))
    assert "worker template only" in message and "the launcher's pods get too" in message
    warned_at(text, ("tier: gold", "tier"), strict=True)


def test_template_labels_that_conflict_are_reported_with_the_value_kept():
    text = LABELLED.replace("  name: train\n", "  name: train\n  labels: {team: nlp}\n", 1)
    text = text.replace("labels: {team: vision, tier: gold}", "labels: {team: vision, tier: silver}", 1)
    messages = warned_at(text, launchers(text, "team: vision", "team"), launchers(text, "tier: silver", "tier"),
                         ("team: vision, tier: gold", "team"), ("tier: gold", "tier"))
    assert sum("keeps the MPIJob's own value 'nlp'" in m for m in messages) == 2
    assert sum("keeps neither" in m for m in messages) == 2
    blueprint, _ = imported(text)
    assert blueprint["metadata"]["labels"] == {"team": "nlp"}


@pytest.mark.parametrize("policy", ["OnFailure", "Always", "ExitCode"])
def test_launcher_restart_policies_the_v1alpha2_controller_turns_into_on_failure_round_trip(policy):
    assert_round_trip(yaml.safe_load(job(launcher=f"      restartPolicy: {policy}\n")))


def test_a_launcher_that_never_restarts_is_reported():
    text = job(launcher="      restartPolicy: Never\n")
    (message,) = warned_at(text, ("restartPolicy: Never", "restartPolicy"))
    assert "restart OnFailure" in message


@pytest.mark.parametrize("api, worker, launcher, needle", [
    (V1, "      restartPolicy: OnFailure\n", "", "restartPolicy: OnFailure"),
    (V1, "", "      restartPolicy: OnFailure\n", "restartPolicy: OnFailure"),
    (V2BETA1, "      restartPolicy: OnFailure\n", "", "restartPolicy: OnFailure"),
    (V2BETA1, "", "      restartPolicy: Never\n", "restartPolicy: Never"),
])
def test_restart_policies_other_than_what_a_blueprint_renders_are_reported(api, worker, launcher, needle):
    warned_at(job(api, worker=worker, launcher=launcher), (needle, "restartPolicy"))


@pytest.mark.parametrize("api", [V1, V2BETA1])
def test_default_restart_policies_round_trip(api):
    defaults = {V1: ("Never", "Never"), V2BETA1: ("OnFailure", "Never")}[api]
    assert_round_trip(yaml.safe_load(job(api)))
    assert_round_trip(yaml.safe_load(job(api, launcher=f"      restartPolicy: {defaults[0]}\n",
                                         worker=f"      restartPolicy: {defaults[1]}\n")))


@pytest.mark.parametrize("command", ['[""]', "[sleep, infinity]", "[/usr/sbin/sshd, -De]"])
@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
def test_a_worker_command_the_operator_keeps_is_reported(api, command):
    text = job(api, worker_container=f"            command: {command}\n")
    (message,) = warned_at(text, (f"command: {command}", "command"))
    assert "as written" in message and "cannot express" in message


@pytest.mark.parametrize("container", ["", "            command: []\n", "            args: [--verbose]\n"])
def test_a_worker_command_the_v1alpha2_controller_replaces_round_trips(container):
    assert_round_trip(yaml.safe_load(job(worker_container=container)))


def test_a_v2beta1_worker_with_args_keeps_them_and_is_reported():
    text = job(V2BETA1, worker_container="            args: [--verbose]\n")
    warned_at(text, ("args: [--verbose]", "args"))


def test_container_names_given_by_main_container_round_trip():
    text = job(spec="  mainContainer: trainer\n").replace("name: mpi-launcher", "name: trainer") \
        .replace("name: mpi-worker", "name: trainer")
    assert_round_trip(yaml.safe_load(text))
    assert_round_trip(yaml.safe_load(text.replace(V1ALPHA2, V1)))


def test_one_custom_name_for_both_containers_becomes_main_container_and_is_reported():
    text = job().replace("name: mpi-launcher", "name: trainer").replace("name: mpi-worker", "name: trainer")
    (message,) = warned_at(text, ("- name: trainer\n            image: example.com/train:1\n            command",
                                  "name"))
    assert "--container trainer" in message
    blueprint, _ = imported(text)
    assert blueprint["spec"]["mainContainer"] == "trainer"
    # v2beta1 has no kubexec.sh: the names are all there is, and they round-trip
    assert_round_trip(yaml.safe_load(text.replace(V1ALPHA2, V2BETA1)))


def test_custom_container_names_that_differ_are_reported():
    text = job().replace("name: mpi-launcher", "name: launcher").replace("name: mpi-worker", "name: worker")
    messages = warned_at(text, ("name: launcher", "name"), ("name: worker", "name"))
    assert all("is renamed" in m for m in messages)


CLAIM = """          volumes:
          - name: data
            persistentVolumeClaim: {{claimName: imagenet{read_only}}}
"""
MOUNT = "            volumeMounts: [{{name: data, mountPath: /data{mount}}}]\n"


def claim_job(read_only: str, mount: str, api: str = V1ALPHA2) -> str:
    return job(api, launcher_container=MOUNT.format(mount=mount) + CLAIM.format(read_only=read_only),
               worker_container=MOUNT.format(mount=mount) + CLAIM.format(read_only=read_only))


@pytest.mark.parametrize("mount", ["", ", readOnly: true", ", readOnly: false"])
def test_claims_round_trip(mount):
    assert_round_trip(yaml.safe_load(claim_job("", mount)))
    assert_round_trip(yaml.safe_load(claim_job(", readOnly: false", mount)))


def test_a_read_only_claim_is_reported_and_stays_read_only():
    text = claim_job(", readOnly: true", "")
    (message,) = warned_at(text, launchers(text, "readOnly: true", "readOnly"))
    assert "persistentVolumeClaim.readOnly: true" in message
    blueprint, _ = imported(text)
    assert blueprint["spec"]["datasets"] == [{"name": "data", "mountPath": "/data", "pvc": "imagenet"}]


def test_two_mpijobs_with_the_same_name_are_an_error_naming_both(tmp_path):
    one = job()
    (tmp_path / "a.yaml").write_text(one + "---\n" + one.replace("name: train", "name: other"))
    (tmp_path / "b.yaml").write_text(one)
    done = run_mpigen("import", "a.yaml", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    line, column = pos(one, "name: train", "train")
    assert done.stderr.decode() == (f"b.yaml:{line}:{column}: error: MPIJob default/train is already defined at "
                                    f"a.yaml:{line}:{column}; each job becomes one blueprint, so names must be "
                                    "unique per namespace\n")
    # in another namespace it is another job
    (tmp_path / "b.yaml").write_text(one.replace("  name: train\n", "  name: train\n  namespace: ml\n"))
    assert run_mpigen("import", "a.yaml", "b.yaml", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("text, needle, sub, words", [
    (job(workers=0), "replicas: 0", "0", "at least 1"),
    (job(workers=200000), "replicas: 200000", "200000", "100000"),
    (job(workers=3).replace("replicas: 1", "replicas: 2"), "replicas: 2", "2", "exactly one launcher"),
    (job().replace("replicas: 2", "replicas: two"), "replicas: two", "two", "whole number"),
    (job(V1).replace("    Worker:\n      replicas: 2\n", "    Worker:\n"), "Worker:", None, "at least one worker"),
    (job().replace("    Worker:\n      replicas: 2\n", "    Worker:\n"), "Worker:", None, "Worker.replicas"),
    (job(V2BETA1, worker="      restartPolicy: Always\n"), "Always", None, "Never and OnFailure"),
    (job(V2BETA1).replace("    Worker:", "    Chief:\n      replicas: 1\n    Worker:"), "Chief:", None,
     "not a replica type"),
])
def test_replicas_out_of_range_are_errors_at_import(text, needle, sub, words):
    message = refused_at(text, needle, sub)
    assert words in message, message


@pytest.mark.parametrize("text, needle, sub, words", [
    (job().replace("- name: mpi-worker\n            image", "- image"), "- image: example.com/train:1\n", "image",
     "needs a name"),
    (job().replace("            image: example.com/train:1\n            command", "            command"),
     "- name: mpi-launcher", "name", "needs an image"),
    (job().replace('            command: [mpirun, -np, "2", python, train.py]\n', ""), "- name: mpi-launcher",
     "name", "no command"),
    (job().replace("  name: train", "  name: Train_1"), "Train_1", None, "DNS-1035"),
    (job(launcher_container="            env: [{name: NUM, value: 1}]\n"), "value: 1", "1", "strings"),
    (job(worker_container="            volumeMounts: [{name: nowhere, mountPath: /x}]\n"), "{name: nowhere", None,
     "names no volume"),
    (job(spec="  mpiDistribution: OpenMPI5\n"), "OpenMPI5", None, "unknown MPI implementation"),
])
def test_mpijobs_the_api_server_the_operator_or_mpigen_refuse_are_errors_at_their_line(text, needle, sub, words):
    message = refused_at(text, needle, sub)
    assert words in message, message


def test_a_template_without_containers_is_an_error():
    text = job().replace("""          containers:
          - name: mpi-worker
            image: example.com/train:1
""", "          containers: []\n")
    assert "no container" in refused_at(text, "containers: []", "containers")


@pytest.mark.parametrize("container, needle", [
    ("            env: [{name: KEY, valueFrom: {secretKeyRef: {name: s, key: k}}}]\n", ("valueFrom", None)),
    ("            resources: {limits: {cpu: 2}, requests: {cpu: 1}}\n", ("cpu: 1", "cpu")),
    ("            resources: {requests: {cpu: 1}}\n", ("cpu: 1", "cpu")),
    ("            resources: {limits: {nvidia.com/gpu: 1}}\n", ("nvidia.com/gpu: 1", "nvidia.com/gpu")),
    ("          hostname: fixed\n", ("hostname", None)),
    ("          serviceAccountName: mine\n", None),  # the v1alpha2 controller writes its own over it
    ("            terminationMessagePolicy: FallbackToLogsOnError\n", None),  # into podTemplatePatch
    ("            resources: {limits: {cpu: 2}, requests: {cpu: 2}}\n", None),  # what Kubernetes sets anyway
])
def test_what_a_launcher_says_is_carried_or_reported_at_its_line(container, needle):
    text = job(launcher_container=container)
    if needle is None:
        assert_round_trip(yaml.safe_load(text))
    else:
        warned_at(text, needle)


@pytest.mark.parametrize("mount, volume, sub", [
    ("{name: d, mountPath: /d, subPath: x}", "{name: d, persistentVolumeClaim: {claimName: c}}", "subPath"),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d}}", "hostPath"),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d, type: File}}", "name: d, hostPath"),
    ("{name: d, mountPath: /d}", "{name: d, emptyDir: {}}", "name: d, emptyDir"),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, configMap: {name: c, items: [{key: a, path: b}]}}",
     "items"),
    ("{name: d, mountPath: /d}", "{name: d, configMap: {name: c}}", "name: d, mountPath"),  # not readOnly
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, configMap: {name: c, defaultMode: 420}}", None),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, secret: {secretName: c}}", None),
    ("{name: d, mountPath: /d}", "{name: d, nfs: {server: fs, path: /x}}", None),
    ("{name: d, mountPath: /d}", "{name: d, hostPath: {path: /d, type: Directory}}", None),
    ("{name: d, mountPath: /d}", "{name: d, csi: {driver: a.b, volumeAttributes: {bucket: b1}}}", None),
    ("{name: d, mountPath: /d, readOnly: true}", "{name: d, csi: {driver: a.b, readOnly: true}}", None),
])
def test_volumes_are_carried_or_reported_at_the_launchers_line(mount, volume, sub):
    """Volumes mounted alike on both roles: a dataset when its form is one, else reported."""
    lines = f"            volumeMounts: [{mount}]\n          volumes: [{volume}]\n"
    text = job(launcher_container=lines, worker_container=lines)
    if sub is None:
        assert_round_trip(yaml.safe_load(text))
        return
    at = launchers(text, mount if sub in mount else volume, sub)
    if sub.startswith("name: d, "):
        at = (at[0], at[1] - 1)  # the list entry's mapping
    warned_at(text, at)


@pytest.mark.parametrize("api, spec, needle", [
    (V2BETA1, "  mpiDistribution: IntelMPI\n", "mpiDistribution"),  # not a v2beta1 field: not carried
    (V1ALPHA2, "  runPolicy: {ttlSecondsAfterFinished: 60}\n", "ttlSecondsAfterFinished"),
    (V1ALPHA2, "  runPolicy: {cleanPodPolicy: All}\n", "cleanPodPolicy"),
    (V1, "  runPolicy: {managedBy: kueue.x-k8s.io/multikueue}\n", "managedBy"),
    (V2BETA1, "  runLauncherAsWorker: true\n", "runLauncherAsWorker"),
])
def test_spec_fields_an_operator_does_not_read_or_a_blueprint_cannot_carry_are_reported(api, spec, needle):
    text = job(api, spec=spec)
    warned_at(text, needle)
    blueprint, _ = imported(text)
    assert blueprint["spec"]["mpiImplementation"] == "OpenMPI"


@pytest.mark.parametrize("api, spec", [
    (V1ALPHA2, "  backoffLimit: 3\n  activeDeadlineSeconds: 60\n  cleanPodPolicy: Running\n"),
    (V1ALPHA2, "  runPolicy: {backoffLimit: 2, activeDeadlineSeconds: 9}\n  backoffLimit: 3\n"),
    (V1ALPHA2, "  slotsPerWorker: 2\n  mpiDistribution: MPICH\n"),
    (V2BETA1, "  runPolicy: {backoffLimit: 2, ttlSecondsAfterFinished: 60, cleanPodPolicy: Running}\n"),
    (V2BETA1, "  mpiImplementation: Intel\n  launcherCreationPolicy: WaitForWorkersReady\n"),
    (V2BETA1, "  sshAuthMountPath: /home/mpiuser/.ssh\n  slotsPerWorker: 4\n"),
    (V1, "  runPolicy: {activeDeadlineSeconds: 100}\n  cleanPodPolicy: All\n"),
])
def test_spec_fields_round_trip(api, spec):
    text = job(api, spec=spec)
    if "slotsPerWorker: 2" in spec:
        text = text.replace('"2", python', '"4", python')
    assert_round_trip(yaml.safe_load(text))


# --- generated MPIJobs: the class, not the cases ------------------------------------------

def node_position(text: str, loc: tuple) -> tuple[int, int]:
    """(line, column) of loc's key in text (of the entry itself for a list index), read
    with PyYAML's composer."""
    node = yaml.compose(text)
    start = None
    for part in loc:
        if isinstance(part, int):
            node = node.value[part]
            start = node.start_mark
        else:
            key, node = next((k, v) for k, v in node.value if k.value == part)
            start = key.start_mark
    return start.line + 1, start.column + 1


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_mpijobs_render_what_the_operator_makes_of_them(api, data):
    from tests.support.mpijob_strategy import mpijobs

    mpijob, _ = data.draw(mpijobs(api))
    assert_round_trip(mpijob)


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_generated_mpijobs_lose_is_reported_exactly_where_it_is_written(api, data):
    from tests.support.mpijob_strategy import mpijobs

    mpijob, losses = data.draw(mpijobs(api, lossy=True))
    text = yaml.safe_dump(mpijob, sort_keys=False)
    where = [node_position(text, loc) for loc in losses]
    warned_at(text, *where)
    if where:
        warned_at(text, *where, strict=True)


# --- the command line: stdout by default, -o all or nothing, never over anything --------

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def need(reason: str | None) -> None:
    """Skip with the reason, except under CI=true, which must run every test."""
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test, but {reason}")
    if reason:
        pytest.skip(reason)


def three_jobs(folder) -> None:
    """Three MPIJobs whose blueprints go to out/a, out/b and out/c (written in that order)."""
    text = "".join("---\n" + job().replace("  name: train\n", f"  name: train\n  namespace: {ns}\n")
                   for ns in ("a", "b", "c"))
    (folder / "jobs.yaml").write_text(text)


def snapshot(folder) -> dict:
    """Every path under folder, with its kind, mode, owner and content (a link's target)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        body = os.readlink(path) if path.is_symlink() else path.read_bytes() if path.is_file() else None
        out[path.relative_to(folder).as_posix()] = (info.st_mode, info.st_uid, body)
    return out


def test_import_prints_the_blueprints_on_stdout_without_an_option(tmp_path):
    three_jobs(tmp_path)
    plain = run_mpigen("import", "jobs.yaml", cwd=tmp_path)
    assert plain.returncode == 0 and plain.stderr == b""
    assert [d["metadata"]["namespace"] for d in yaml.safe_load_all(plain.stdout)] == ["a", "b", "c"]
    assert run_mpigen("import", "jobs.yaml", "--stdout", cwd=tmp_path).stdout == plain.stdout
    assert not any(p.name != "jobs.yaml" for p in tmp_path.iterdir())


@pytest.mark.parametrize("kind", ["dangling link", "link to a file", "file", "folder"])
def test_import_refuses_any_existing_target_path(tmp_path, kind):
    three_jobs(tmp_path)
    (tmp_path / "out" / "b").mkdir(parents=True)
    (tmp_path / "elsewhere").write_text("keep\n")
    target = tmp_path / "out" / "b" / "train.yaml"
    {"dangling link": lambda: target.symlink_to(tmp_path / "nowhere"),
     "link to a file": lambda: target.symlink_to(tmp_path / "elsewhere"),
     "file": lambda: target.write_text("mine\n"), "folder": lambda: target.mkdir()}[kind]()
    before = snapshot(tmp_path)
    done = run_mpigen("import", "jobs.yaml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == ("error: out/b/train.yaml: refusing to overwrite an existing file; move it "
                                    "away or choose another -o folder\n")
    assert snapshot(tmp_path) == before


def test_an_output_folder_that_cannot_be_made_is_exit_2_naming_it(tmp_path):
    three_jobs(tmp_path)
    (tmp_path / "out").write_text("a file\n")
    done = run_mpigen("import", "jobs.yaml", "-o", "out/sub", cwd=tmp_path)
    assert (done.returncode, done.stderr.decode()) == (2, "error: out: cannot create this folder: a file is in "
                                                          "the way\n")
    assert (tmp_path / "out").read_text() == "a file\n"


@pytest.fixture
def shared_tmp():
    """A folder user nobody can reach (pytest's own is root's alone)."""
    import tempfile

    need(None if os.geteuid() == 0 else "needs root, to run mpigen as user nobody")
    need(None if shutil.which("setpriv") else "setpriv (util-linux) is not installed")
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="mpigen-import-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


def as_nobody(folder, *args):
    return run_mpigen(*args, cwd=folder, prefix=NOBODY, timeout=None)


def test_a_failed_import_removes_what_it_wrote_and_nothing_else(shared_tmp):
    """The third blueprint cannot be written (its folder is not the user's): the first two,
    and the folders made for them, are removed; what was there stays as it was."""
    three_jobs(shared_tmp)
    out = shared_tmp / "out"
    (out / "c").mkdir(parents=True)
    out.chmod(0o777)
    (out / "c").chmod(0o555)
    (out / "mine.txt").write_text("keep\n")
    before = snapshot(shared_tmp)
    done = as_nobody(shared_tmp, "import", "jobs.yaml", "-o", "out")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "error: out/c/train.yaml: cannot write: Permission denied\n"
    assert snapshot(shared_tmp) == before


def test_an_output_folder_nobody_may_create_is_exit_2(shared_tmp):
    three_jobs(shared_tmp)
    (shared_tmp / "locked").mkdir(mode=0o555)
    (shared_tmp / "locked").chmod(0o555)
    done = as_nobody(shared_tmp, "import", "jobs.yaml", "-o", "locked/out")
    assert (done.returncode, done.stderr.decode()) == (2, "error: locked/out: cannot create this folder: "
                                                          "Permission denied\n")
    assert list((shared_tmp / "locked").iterdir()) == []


@pytest.fixture
def small_disk():
    """A 64 KiB tmpfs, unmounted afterwards."""
    import tempfile
    from pathlib import Path

    need(None if os.geteuid() == 0 else "needs root, to mount a tmpfs")
    folder = Path(tempfile.mkdtemp(prefix="mpigen-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        folder.rmdir()
        need(f"cannot mount a tmpfs: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
        folder.rmdir()


def test_a_full_disk_leaves_no_half_import(small_disk, tmp_path):
    three_jobs(tmp_path)
    (small_disk / "out").mkdir()
    (small_disk / "out" / "mine.txt").write_text("keep\n")
    filler = small_disk / "filler"
    disk = os.statvfs(small_disk)
    filler.write_bytes(b"x" * ((disk.f_bavail - 2) * disk.f_frsize))  # room for two blueprints, not three
    before = snapshot(small_disk)
    done = run_mpigen("import", str(tmp_path / "jobs.yaml"), "-o", "out", cwd=small_disk)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == "error: out/c/train.yaml: cannot write: No space left on device\n"
    assert snapshot(small_disk) == before


def _paths(node, here=()):
    yield here
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, here + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, here + (index,))


ODD_VALUES = st.sampled_from([None, 0, -1, 1, 2**40, True, "", "x", "Never", "1.5", "-", [], [""], [1], {}, {"a": 1},
                              {"name": "x"}, 0.5, float("inf"), "a\nb", "/etc/mpi", "/dev/shm", "mpi-job-config",
                              "dshm", "nvidia.com/gpu", "Intel", {"claimName": "c", "readOnly": True},
                              [{"name": "x", "mountPath": "/x"}], {"add": "X"}])


@pytest.mark.parametrize("api", [V1ALPHA2, V1, V2BETA1])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mpijob_imports_to_an_error_or_to_a_blueprint_that_renders(api, data):
    """Whatever an MPIJob holds where: import never fails (exit 3), and a blueprint it
    writes is one render and validate accept, under every target."""
    from tests.support.mpijob_strategy import mpijobs

    mpijob, _ = data.draw(mpijobs(api, lossy=data.draw(st.booleans())))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(mpijob) if len(p) > 1]
        path = data.draw(st.sampled_from(paths))
        parent = mpijob
        for part in path[:-1]:
            parent = parent[part]
        parent[path[-1]] = json.loads(json.dumps(data.draw(ODD_VALUES)))  # a copy of its own
    text = yaml.safe_dump(mpijob, sort_keys=False)
    blueprint, diagnostics = imported(text)
    assert all(d.mark.line > 0 for d in diagnostics), [str(d) for d in diagnostics]
    if blueprint:
        render_blueprint(blueprint)
        render_blueprint(blueprint, target="mpijob", mpijob_api=V1 if api == V1 else V2BETA1)


def test_strict_turns_each_loss_into_an_error_and_writes_nothing(tmp_path):
    text = job(launcher="      restartPolicy: Never\n")
    (tmp_path / "job.yaml").write_text(text)
    line, column = pos(text, "restartPolicy: Never", "restartPolicy")
    loose = run_mpigen("import", "job.yaml", "-o", "out", cwd=tmp_path)
    assert loose.returncode == 0 and f"job.yaml:{line}:{column}: warning: " in loose.stderr.decode()
    assert (tmp_path / "out" / "default" / "train.yaml").is_file()
    strict = run_mpigen("import", "job.yaml", "-o", "strict", "--strict", cwd=tmp_path)
    assert (strict.returncode, strict.stdout) == (2, b"")
    assert strict.stderr.decode().startswith(f"job.yaml:{line}:{column}: error: ")
    assert not (tmp_path / "strict").exists()
