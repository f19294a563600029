"""The trainjob target under each Kubeflow Trainer version (mpigen.render.trainjob.versions).
v2.4's MPI plugin sets and reserves, beside Open MPI 4's four variables, their PRRTE twins
(kubeflow/trainer#4029, fixing #4028; listed here from the pull request, not from mpigen):
mpigen's launcher and TrainJob set none of them, and its ssh options still reach ssh, through
the agent. replicatedJob names are at most 20 characters (#4394)."""

from __future__ import annotations

import pytest
import yaml

from mpigen.errors import InputError
from mpigen.render.trainjob.versions import upgrade
from mpigen.review.schemas import validate_object
from tests.support.blueprints import blueprint_text
from tests.support.paths import ROOT
from tests.support.rendering import by_kind, render_text

OPENMPI4_PLUGIN = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames",
                   "OMPI_MCA_orte_set_default_slots", "OMPI_MCA_plm_rsh_args")
V24_PLUGIN = OPENMPI4_PLUGIN + ("PRTE_MCA_prte_default_hostfile", "PRTE_MCA_prte_keep_fqdn_hostnames",
                                "PRTE_MCA_prte_set_default_slots", "PRTE_MCA_plm_ssh_args")
SSH_AGENT = "ssh -F /etc/mpigen-ssh/ssh_config"  # mpigen's ssh_config (mpigen.render.trainjob.names.SSH_CONFIG)
CASES = [pytest.param({"workers": 2}, id="plain"),
         pytest.param({"workers": 2, "launcher": {"runAsWorker": True}}, id="launcher-runs-ranks"),
         pytest.param({"workers": 2, "runtime": {"name": "mpi-openmpi"}}, id="cluster-runtime")]


def rendered(spec: dict, version: str) -> dict[str, dict]:
    return by_kind(render_text(blueprint_text("train", **spec), target="trainjob", trainer_version=version))


def launcher_env(objects: dict[str, dict]) -> dict[str, str]:
    """The env of the launcher's node container in the runtime mpigen writes (none: {})."""
    runtime = objects.get("TrainingRuntime")
    if runtime is None:
        return {}
    (launcher,) = [j for j in runtime["spec"]["template"]["spec"]["replicatedJobs"] if j["name"] == "launcher"]
    (node,) = [c for c in launcher["template"]["spec"]["template"]["spec"]["containers"] if c["name"] == "node"]
    return {e["name"]: e.get("value") for e in node.get("env", [])}


@pytest.mark.parametrize("spec", CASES)
def test_under_v2_4_mpigen_sets_nothing_the_plugin_sets_and_its_ssh_options_go_into_the_agent(spec):
    objects = rendered(spec, "v2.4")
    trainer_env = {e["name"] for e in objects["TrainJob"]["spec"]["trainer"].get("env", [])}
    assert not trainer_env & set(V24_PLUGIN)
    env = launcher_env(objects)
    assert not set(env) & set(V24_PLUGIN)
    if env:
        assert env["OMPI_MCA_plm_rsh_agent"] == env["PRTE_MCA_plm_ssh_agent"] == SSH_AGENT


@pytest.mark.parametrize("spec", CASES)
def test_under_v2_3_open_mpi_5_gets_mpigen_s_own_prrte_variables(spec):
    objects = rendered(spec, "v2.3")
    names = set(launcher_env(objects)) | {e["name"] for e in objects["TrainJob"]["spec"]["trainer"].get("env", [])}
    assert "PRTE_MCA_prte_default_hostfile" in names and "PRTE_MCA_plm_ssh_agent" not in names


def test_under_v2_4_a_launcher_that_runs_ranks_reads_the_trainer_s_hostfile():
    """keep_fqdn_hostnames false (the plugin's, #4029) lets PRRTE take the launcher's own line
    for the local host: mpigen's renamed copy of the hostfile is no longer made or mounted."""
    def mounts(version: str) -> set[str]:
        runtime = rendered({"workers": 2, "launcher": {"runAsWorker": True}}, version)["TrainingRuntime"]
        (launcher,) = [j for j in runtime["spec"]["template"]["spec"]["replicatedJobs"] if j["name"] == "launcher"]
        setup = launcher["template"]["spec"]["template"]["spec"]["initContainers"][0]
        return {m["name"] for m in setup["volumeMounts"]}
    assert "mpi-hostfile" in mounts("v2.3") and "mpi-hostfile" not in mounts("v2.4")


@pytest.mark.parametrize("name", V24_PLUGIN[4:])
def test_a_blueprint_env_of_a_name_the_v2_4_plugin_sets_is_refused_at_its_line(name):
    with pytest.raises(InputError) as raised:
        render_text(blueprint_text("train", workers=2, env={name: "x"}), target="trainjob", trainer_version="v2.4")
    (diagnostic,) = raised.value.diagnostics
    assert name in diagnostic.message and diagnostic.mark.line > 0


def golden_objects() -> list[dict]:
    text = (ROOT / "golden" / "trainjob-v2.4.yaml").read_text(encoding="utf-8")
    return [obj for obj in yaml.safe_load_all(text) if obj and obj["apiVersion"].startswith("trainer.kubeflow.org/")]


def test_the_v2_4_golden_objects_are_valid_under_the_trainer_models_and_its_rules():
    """kubeflow-trainer-api has no v2.4 release on PyPI (2.3.0 is the newest): its 2.3.0 models."""
    objects = golden_objects()
    assert {obj["kind"] for obj in objects} == {"TrainJob", "TrainingRuntime"}
    for obj in objects:
        status, errors = validate_object(obj, "1.30", {})
        assert status == "valid", (obj["metadata"]["name"], errors)
        if obj["kind"] == "TrainJob":
            assert not {e["name"] for e in obj["spec"]["trainer"].get("env", [])} & set(V24_PLUGIN)
            continue
        for job in obj["spec"]["template"]["spec"]["replicatedJobs"]:
            assert len(job["name"]) <= 20
            for container in job["template"]["spec"]["template"]["spec"]["containers"]:
                assert not {e["name"] for e in container.get("env", [])} & set(V24_PLUGIN)


def test_a_move_to_v2_4_warns_of_each_suspended_trainjob_and_tells_a_running_one_it_keeps_its_jobset():
    """The v2.4.0 release notes: MPI TrainJobs suspended before the upgrade cannot resume after
    it. A running one keeps its JobSet (v2.3.0 plugins/jobset/jobset.go Build rebuilds it only
    while suspended)."""
    suspended, running = {"spec": {"suspend": True}}, {"spec": {"suspend": False}}
    said, warning = upgrade(suspended, "v2.3", "v2.4")
    assert warning and "cannot resume" in said
    said, warning = upgrade(running, "v2.3", "v2.4")
    assert not warning and "keeps its JobSet" in said
    assert upgrade(suspended, "v2.4", "v2.3") is None


def _names(spec: dict, version: str, gitops: str) -> dict[str, str]:
    objects = render_text(blueprint_text("train", **spec), target="trainjob", trainer_version=version, gitops=gitops)
    return {o["kind"]: o["metadata"]["name"] for o in objects if o["kind"] not in ("ConfigMap", "ServiceAccount")}


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
@pytest.mark.parametrize("spec", [{"workers": 2}, {"workers": 2, "launcher": {"runAsWorker": True}}])
def test_a_move_to_v2_4_keeps_the_run_of_a_trainjob_on_mpigen_s_own_runtime(spec, gitops):
    """The version changes only the TrainingRuntime (its launcher's env), which the Trainer lets
    change in place and a started TrainJob no longer reads (its runtime snapshot, KEP-2599,
    v2.3.0 pkg/runtime/core/trainingruntime.go NewObjects): the run, so the names, stay."""
    old, new = _names(spec, "v2.3", gitops), _names(spec, "v2.4", gitops)
    assert old == new and old["TrainJob"].startswith("train-") and old["TrainingRuntime"] == old["TrainJob"]
    assert launcher_env(rendered(spec, "v2.3")) != launcher_env(rendered(spec, "v2.4"))  # the runtime does change


@pytest.mark.parametrize("gitops", ["argocd", "flux"])
@pytest.mark.parametrize("spec", [pytest.param({"workers": 2, "runtime": {"name": "mpi-openmpi"}}, id="cluster-runtime"),
                                  pytest.param({"workers": 2, "runtime": {"emit": "ClusterTrainingRuntime"}},
                                               id="shared-runtime")])
def test_a_move_to_v2_4_is_a_new_run_where_it_changes_the_trainjob_itself(spec, gitops):
    """A runtime of the cluster's: below v2.4 mpigen's OpenMPI TrainJob carries the PRRTE hostfile
    in its immutable spec.trainer; a ClusterTrainingRuntime named by its content: the TrainJob's
    immutable runtimeRef names another. Either is a TrainJob of its own, which diff names."""
    old, new = _names(spec, "v2.3", gitops), _names(spec, "v2.4", gitops)
    assert old["TrainJob"] != new["TrainJob"]
