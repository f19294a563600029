"""What changes with the Kubeflow Trainer version the environment's clusters run
(mpigen.formats.versions): the launcher variables the MPI plugin sets itself and reserves
(constants.MPIReservedEnvNames), so that mpigen's runtime sets none of them and the TrainJob's
trainer.env carries none.

- v2.3 (v2.3.0 pkg/constants/constants.go, shared/reference/targets.md 2.5): Open MPI 4's
  OMPI_MCA_ names only.
- v2.4 (release v2.4.0; kubeflow/trainer#4029, fixing #4028, not read in source: see
  docs/targets.md "Trainer versions"): also their PRRTE twins, PRTE_MCA_prte_keep_fqdn_hostnames
  set to false, and PRTE_MCA_plm_ssh_args set to the plugin's own ssh options. mpigen's
  `-F <ssh_config>` then goes into the ssh agent (PRTE_MCA_plm_ssh_agent, which the plugin does
  not set): PRRTE splits the agent at spaces and appends plm_ssh_args after it (PRRTE v3.0.9
  src/mca/plm/ssh/plm_ssh_component.c prte_plm_ssh_search, plm_ssh_module.c setup_launch), as
  Open MPI 4 does with OMPI_MCA_plm_rsh_agent.
"""

from __future__ import annotations

from mpigen.formats.versions import DEFAULT_TRAINER_VERSION
from mpigen.kube.labels import KUEUE_QUEUE_LABEL
from mpigen.load.document import value_at
from mpigen.compile.launcher_env import OPENMPI5_AGENT

OPENMPI4_PLUGIN_ENV = ("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames",
                       "OMPI_MCA_orte_set_default_slots")
OPENMPI5_PLUGIN_ENV = ("PRTE_MCA_prte_default_hostfile", "PRTE_MCA_prte_keep_fqdn_hostnames",
                       "PRTE_MCA_prte_set_default_slots", "PRTE_MCA_plm_ssh_args")
PLUGIN_ENV = {"v2.3": OPENMPI4_PLUGIN_ENV, "v2.4": OPENMPI4_PLUGIN_ENV + OPENMPI5_PLUGIN_ENV}
RESUME_BROKEN = ("v2.3", "v2.4")  # (from, to): suspended MPI TrainJobs cannot resume across it
# Every name some version's plugin sets: reserved whatever the version, so that a blueprint
# renders for each environment alike.
ALL_PLUGIN_ENV = tuple(dict.fromkeys(name for names in PLUGIN_ENV.values() for name in names))


def plugin_env(version: str = DEFAULT_TRAINER_VERSION) -> tuple[str, ...]:
    """The launcher variables the MPI plugin of that Trainer version sets and reserves."""
    return PLUGIN_ENV[version]


def plugin_sets_prrte(version: str = DEFAULT_TRAINER_VERSION) -> bool:
    """Whether that version's MPI plugin sets Open MPI 5's (PRRTE's) hostfile, slots, ssh
    arguments, and keep_fqdn_hostnames false: PRRTE then takes the launcher's own hostfile line
    (`<pod>.<subdomain>`) for the local host by its short name, and still starts its daemons
    over ssh on the name as written (PRRTE v3.0.9 src/util/hostfile/hostfile.c: the short name
    an alias, `rawname` the line's name, which plm_ssh_module.c launches on)."""
    return "PRTE_MCA_prte_default_hostfile" in PLUGIN_ENV[version]


def upgrade(trainjob: dict, old: str, new: str) -> tuple[str, bool] | None:
    """What moving the clusters from Trainer `old` to `new` does to a TrainJob they run and the
    new render keeps (one it renames is a new run: mpigen.review.diff.restarts says so), as
    Git has it, or as the cluster has it under `diff --live` (spec.suspend then the live one):

    - running: it keeps its JobSet, which the Trainer does not rebuild while neither it nor the
      TrainJob is suspended (v2.3.0 pkg/runtime/framework/plugins/jobset/jobset.go Build), and
      builds from the runtime snapshot its first reconcile made (KEP-2599: v2.3.0
      pkg/runtime/core/trainingruntime.go NewObjects, snapshot.go), not from the runtime mpigen
      now changes in place;
    - suspended (state: completed; or under a queue, held by Kueue: its webhook suspends a
      TrainJob with a queue on creation, and a preemption suspends it again, v0.19.2
      pkg/controller/jobs/trainjob/trainjob_webhook.go Default, pkg/controller/jobframework/
      reconciler.go stopJob): from v2.3 to v2.4 it cannot resume, the new variables not
      entering its JobSet, whose templates the JobSet webhook keeps while suspended but for
      Kueue's fields (jobset v0.12.0 pkg/webhooks/jobset_webhook.go ValidateUpdate; Trainer
      v2.4.0 release notes, shared/reference/targets.md 6): a warning;
    - under a queue, as Git has it (spec.suspend left to Kueue): it may be either, a warning
      that names it; `diff --live` tells which."""
    spec, labels = trainjob.get("spec", {}), trainjob.get("metadata", {}).get("labels", {})
    suspend, queue = spec.get("suspend"), labels.get(KUEUE_QUEUE_LABEL)
    breaks = (old, new) == RESUME_BROKEN
    kept = (f"a run going on keeps its JobSet (rebuilt only while suspended) and its runtime snapshot; the runtime "
            f"changes in place, and a new run gets {new}'s launcher")
    retry = f"start it again as a new run (change spec.run) once the clusters run {new}"
    if suspend is True and breaks:
        held = "state: completed" if queue is None else f"held by Kueue in queue {queue}, or state: completed"
        return (f"suspended ({held}): Trainer {new} cannot resume an MPI TrainJob suspended before the upgrade "
                f"(its release notes); {retry}, rather than resuming it", True)
    if suspend is None and queue is not None and breaks:
        return (f"queued in {queue} (spec.scheduling.queue): Kueue holds it suspended until admitted, and again when "
                f"preempted; suspended, Trainer {new} cannot resume it (its release notes): {retry}; mpigen diff "
                "--live names those the cluster holds suspended", True)
    return None if suspend is True else (kept, False)


def written_for(runtime: dict) -> tuple[str, tuple | None]:
    """The Trainer version a runtime mpigen wrote was rendered for, and where its launcher says
    so: from v2.4 the launcher carries the PRRTE ssh agent (render/trainjob/pods.py) in place of
    the variables the plugin then sets; (the default version, None) for any other."""
    for loc in _env_entries(runtime):
        if value_at(runtime, loc + ("name",)) == OPENMPI5_AGENT:
            return "v2.4", loc
    return DEFAULT_TRAINER_VERSION, None


def _env_entries(runtime: dict):
    """The place of every env entry of every container of the runtime's replicated jobs."""
    jobs = ("spec", "template", "spec", "replicatedJobs")
    for j, _ in enumerate(_listed(runtime, jobs)):
        containers = jobs + (j, "template", "spec", "template", "spec", "containers")
        for c, _ in enumerate(_listed(runtime, containers)):
            for e, _ in enumerate(_listed(runtime, containers + (c, "env"))):
                yield containers + (c, "env", e)


def _listed(data: dict, loc: tuple) -> list:
    found = value_at(data, loc)
    return found if isinstance(found, list) else []
