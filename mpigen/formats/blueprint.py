"""The blueprint format (apiVersion mpigen.dev/v1alpha1, kind MPIJobBlueprint).

This model is the single source of the format: validation, defaults and the published
JSON Schema (`mpigen schema`) all come from it. Checks that span several fields (name
length against the worker count, reserved names, ...) live in mpigen.validate.fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from mpigen.kube.image import HELP as IMAGE_HELP, IMAGE, image_problem
from mpigen.kube.names import DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN, LABEL_VALUE, QUALIFIED_NAME

API_VERSION = "mpigen.dev/v1alpha1"
KIND = "MPIJobBlueprint"

# An environment variable name that every shell and `mpirun -x` accepts.
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
# resource.Quantity, non-negative (k8s.io/apimachinery/pkg/api/resource).
# The exponent is an integer, as ParseQuantity reads it (strconv.ParseInt): the API's
# published pattern also lets 1e1.5 through, which the parser then refuses.
QUANTITY = r"^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$"
ABSOLUTE_PATH = r"^/[^\x00]*$"

# What a pattern means, in words a user can act on (used in error messages).
PATTERN_HELP = {
    DNS1035_LABEL: "a DNS-1035 label: lowercase letters, digits and '-', starting with a letter "
                   "and ending with a letter or digit",
    DNS1123_LABEL: "a DNS-1123 label: lowercase letters, digits and '-', starting and ending "
                   "with a letter or digit",
    DNS1123_SUBDOMAIN: "a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'",
    QUALIFIED_NAME: "a Kubernetes qualified name: an optional DNS prefix and '/', then letters, "
                    "digits, '-', '_' and '.', starting and ending with a letter or digit",
    LABEL_VALUE: "a label value: at most 63 letters, digits, '-', '_' and '.', starting and "
                 "ending with a letter or digit",
    ENV_NAME: "an environment variable name: letters, digits and '_', not starting with a digit",
    QUANTITY: "a Kubernetes quantity such as 16, 500m, 64Gi or 1.5",
    ABSOLUTE_PATH: "an absolute path starting with '/'",
    IMAGE: IMAGE_HELP,
}


# Accelerator resources of the device plugins users meet (NVIDIA, with MIG slices; AMD;
# Intel Gaudi and GPUs; AWS Neuron; Google TPU), and any other whose name says gpu. Not a
# vendor prefix alone: NVIDIA's SR-IOV and RDMA devices are nvidia.com/ resources too.
ACCELERATORS = ("nvidia.com/gpu*", "nvidia.com/mig-*", "amd.com/gpu*", "habana.ai/*", "gpu.intel.com/*",
                "aws.amazon.com/neuron*", "google.com/tpu*")


def is_accelerator(resource: str) -> bool:
    from fnmatch import fnmatchcase

    return "gpu" in resource.lower() or any(fnmatchcase(resource, pattern) for pattern in ACCELERATORS)


def _number_to_string(value: Any) -> Any:
    """Quantities may be written as YAML numbers (cpu: 16), as in Kubernetes manifests."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return value


def _in_range(value: str) -> str:
    """Kubernetes' bounds of a quantity (mpigen.kube.quantity), reported at the value."""
    from pydantic_core import PydanticCustomError

    from mpigen.kube.quantity import range_problem

    problem = range_problem(value)
    if problem:
        raise PydanticCustomError("quantity_range", problem)
    return value


def _image_reference(value: str) -> str:
    """What the pattern cannot say of an image reference (the length of its name)."""
    from pydantic_core import PydanticCustomError

    problem = image_problem(value)
    if problem:
        raise PydanticCustomError("image_reference", f"{value!r} is not an image reference: {problem}")
    return value


ImageReference = Annotated[str, Field(pattern=IMAGE, min_length=1, max_length=1024), AfterValidator(_image_reference)]
Quantity = Annotated[
    str,
    BeforeValidator(_number_to_string),
    Field(pattern=QUANTITY, max_length=64),
    AfterValidator(_in_range),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": QUANTITY, "maxLength": 64},
                              {"type": "integer", "minimum": 0}, {"type": "number", "minimum": 0}]}),
]
ResourceName = Annotated[str, Field(pattern=QUALIFIED_NAME, max_length=253)]
RunName = Annotated[
    str,
    BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
    Field(pattern=LABEL_VALUE, min_length=1, max_length=63),
    WithJsonSchema({"anyOf": [{"type": "string", "pattern": LABEL_VALUE, "minLength": 1, "maxLength": 63},
                              {"type": "integer", "minimum": 0}]}),
]
LabelKey = Annotated[str, Field(pattern=QUALIFIED_NAME, max_length=316)]
LabelValue = Annotated[str, Field(pattern=LABEL_VALUE, max_length=63)]
EnvName = Annotated[str, Field(pattern=ENV_NAME, max_length=256)]
AbsolutePath = Annotated[str, Field(pattern=ABSOLUTE_PATH, max_length=4096)]
Arg = Annotated[str, Field(max_length=65536)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Metadata(_Model):
    name: str = Field(
        pattern=DNS1035_LABEL, max_length=63,
        description="Job name, a DNS-1035 label. Objects are named after it (<name>-config, "
                    "<name>-launcher, <name>-worker); `<name>-worker-<workers-1>` must fit in 63 characters.",
        examples=["resnet50-imagenet"])
    namespace: str = Field(
        "default", pattern=DNS1123_LABEL, max_length=63,
        description="Namespace of every rendered object.", examples=["ml-team"])
    labels: dict[LabelKey, LabelValue] = Field(
        default_factory=dict,
        description="Added to every rendered object and pod template, never to selectors.",
        examples=[{"team": "vision"}])
    annotations: dict[LabelKey, str] = Field(
        default_factory=dict,
        description="Added to every rendered object and pod template.",
        examples=[{"owner": "vision@example.com"}])


class NFS(_Model):
    server: str = Field(min_length=1, max_length=253, pattern=r"^[^\s]+$",
                        description="NFS server host name or address.", examples=["fs-0123.efs.example.com"])
    path: AbsolutePath = Field(description="Exported path on the server.", examples=["/imagenet"])


class CSI(_Model):
    driver: str = Field(pattern=DNS1123_SUBDOMAIN, max_length=63,
                        description="Name of the CSI driver, which must support inline (ephemeral) volumes.",
                        examples=["gcsfuse.csi.storage.gke.io"])
    volumeAttributes: dict[Annotated[str, Field(min_length=1, max_length=253)], str] = Field(
        default_factory=dict, description="Driver-specific attributes (the bucket, mount options, ...).",
        examples=[{"bucketName": "imagenet-shards"}])
    nodePublishSecret: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="Name of a Secret in the job's namespace passed to the driver (by name only: mpigen never "
                    "reads or writes Secret values).", examples=["bucket-credentials"])


class Download(_Model):
    """An init step that fills a shared dataset before any rank starts."""

    image: Optional[ImageReference] = Field(None,
                                 description="Image of the download step (default: spec.image).",
                                 examples=["amazon/aws-cli:2.17.0"])
    command: list[Arg] = Field(min_length=1, description="Command that writes the data under the dataset's mountPath.",
                               examples=[["aws", "s3", "sync", "s3://bucket/imagenet", "/data/imagenet"]])
    env: dict[EnvName, str] = Field(default_factory=dict, description="Environment of the download step.",
                                    examples=[{"AWS_REGION": "us-east-1"}])


DATASET_SOURCES = ("pvc", "nfs", "hostPath", "csi", "configMap", "secret")


class Dataset(_Model):
    name: str = Field(pattern=DNS1123_LABEL, max_length=63,
                      description="Volume name, a DNS-1123 label.", examples=["imagenet"])
    mountPath: AbsolutePath = Field(description="Where the data appears, the same on the launcher and every worker.",
                                    examples=["/data/imagenet"])
    readOnly: bool = Field(True, description="Mount read-only. Set false for an output or checkpoint volume, "
                                             "which must then be shared by every worker (pvc, nfs or csi).",
                           examples=[False])
    pvc: Optional[str] = Field(None, pattern=DNS1123_SUBDOMAIN, max_length=253,
                               description="Source: a PersistentVolumeClaim in the job's namespace.",
                               examples=["imagenet-tfrecords"])
    accessMode: Optional[Literal["ReadWriteOnce", "ReadWriteOncePod", "ReadOnlyMany", "ReadWriteMany"]] = Field(
        None, description="With pvc: the claim's access mode, when known. mpigen refuses a ReadWriteOnce or "
                          "ReadWriteOncePod claim shared by several pods (the second node fails with FailedMount).",
        examples=["ReadWriteMany"])
    nfs: Optional[NFS] = Field(None, description="Source: an NFS export, mounted inline.")
    hostPath: Optional[AbsolutePath] = Field(
        None, description="Source: a folder on every node (mounted with type Directory, so a missing "
                          "folder stops the pod instead of silently creating an empty one).",
        examples=["/mnt/datasets/imagenet"])
    csi: Optional[CSI] = Field(None, description="Source: an inline CSI volume (object storage through FUSE, ...).")
    configMap: Optional[str] = Field(None, pattern=DNS1123_SUBDOMAIN, max_length=253,
                                     description="Source: a ConfigMap in the job's namespace, by name (always "
                                                 "read-only).", examples=["train-config"])
    secret: Optional[str] = Field(None, pattern=DNS1123_SUBDOMAIN, max_length=253,
                                  description="Source: a Secret in the job's namespace, by name only (always "
                                              "read-only; mpigen never reads or writes Secret values).",
                                  examples=["wandb-api-key"])
    download: Optional[Download] = Field(
        None, description="An init step on the launcher that fills this dataset before mpirun starts; the dataset "
                          "must be shared (pvc, nfs or csi) so that every worker sees what it wrote.")

    @model_validator(mode="after")
    def _one_source(self) -> "Dataset":
        sources = [key for key in DATASET_SOURCES if getattr(self, key) is not None]
        if len(sources) != 1:
            found = ", ".join(sources) if sources else "none"
            raise ValueError(f"a dataset needs exactly one source of {', '.join(DATASET_SOURCES)} (found: {found})")
        if self.accessMode is not None and self.pvc is None:
            raise ValueError("accessMode describes a PersistentVolumeClaim; it only goes with pvc")
        return self

    @property
    def source(self) -> str:
        return next(key for key in DATASET_SOURCES if getattr(self, key) is not None)


class Resources(_Model):
    worker: dict[ResourceName, Quantity] = Field(
        default_factory=dict,
        description="Resource limits of each worker's MPI container (requests default to the limits). "
                    "GPUs are set with gpusPerWorker, not here.",
        examples=[{"cpu": "16", "memory": "64Gi"}])
    launcher: dict[ResourceName, Quantity] = Field(
        default_factory=dict,
        description="Resource limits of the launcher container. The launcher never gets GPUs.",
        examples=[{"cpu": "1", "memory": "2Gi"}])


class RunPolicy(_Model):
    cleanPodPolicy: Literal["None", "Running", "All"] = Field(
        "None", description="What the operator deletes when the job ends (the operator's default is None).")
    backoffLimit: int = Field(6, ge=0, le=1_000_000, description="Retries of the launcher Job.")
    activeDeadlineSeconds: Optional[int] = Field(
        None, ge=1, le=10**12, description="Wall-clock limit of the launcher Job, in seconds.", examples=[86400])
    ttlSecondsAfterFinished: Optional[int] = Field(
        None, ge=0, le=10**12,
        description="Seconds after which Kubernetes deletes the finished launcher Job. Only without a GitOps "
                    "profile: Argo CD and Flux would recreate the deleted Job and run it again.",
        examples=[3600])


class Toleration(_Model):
    """A pod toleration, as in the Kubernetes pod spec."""

    key: Optional[LabelKey] = Field(None, description="Taint key; empty with operator Exists tolerates every taint.",
                                    examples=["nvidia.com/gpu"])
    operator: Optional[Literal["Exists", "Equal"]] = Field(
        None, description="Exists or Equal (Kubernetes' default is Equal).", examples=["Exists"])
    value: Optional[LabelValue] = Field(None, description="Taint value, with operator Equal.", examples=["present"])
    effect: Optional[Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]] = Field(
        None, description="Taint effect to tolerate; empty tolerates every effect.", examples=["NoSchedule"])
    tolerationSeconds: Optional[int] = Field(
        None, ge=0, le=10**12, description="With effect NoExecute: how long the pod stays after the taint appears.")

    @model_validator(mode="after")
    def _consistent(self) -> "Toleration":
        # The API server's own rules (ValidateTolerations), checked here with a position.
        if self.operator == "Exists" and self.value:
            raise ValueError("a toleration with operator Exists takes no value; remove value or use operator Equal")
        if not self.key and self.operator != "Exists":
            raise ValueError("a toleration without a key must have operator: Exists (it then tolerates every taint)")
        if self.tolerationSeconds is not None and self.effect != "NoExecute":
            raise ValueError("tolerationSeconds only applies to effect: NoExecute")
        return self

    def to_pod_spec(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class RolePlacement(_Model):
    nodeSelector: dict[LabelKey, LabelValue] = Field(
        default_factory=dict, description="Node labels the pods must match.",
        examples=[{"node.kubernetes.io/instance-type": "p4d.24xlarge"}])
    tolerations: list[Toleration] = Field(
        default_factory=list, description="Taints the pods tolerate, e.g. those of a GPU node pool.",
        examples=[[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]])
    affinity: dict[Literal["nodeAffinity", "podAffinity", "podAntiAffinity"], dict[str, Any]] = Field(
        default_factory=dict, description="A Kubernetes pod affinity, as in the pod spec.",
        examples=[{"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                   "values": ["us-east-1a"]}]}]}}}])
    priorityClassName: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="PriorityClass of the pods; gang scheduling passes the launcher's (else the workers') to the "
                    "PodGroup.", examples=["training-high"])


class WorkerPlacement(RolePlacement):
    onePodPerNode: Optional[bool] = Field(
        None, description="Never two rank pods of this job on one node (a required pod anti-affinity on "
                          "kubernetes.io/hostname). Default: true with hostNetwork, else false.",
        examples=[True])


class Placement(_Model):
    worker: WorkerPlacement = Field(default_factory=WorkerPlacement, description="Where the worker pods run.")
    launcher: RolePlacement = Field(default_factory=RolePlacement, description="Where the launcher pod runs.")


GANG_SCHEDULERS = ("volcano", "scheduler-plugins", "kube-batch")
# The scheduler name the pods get, as the operator's --gang-scheduling flag value would be:
# Volcano's and kube-batch's own names, and the name the scheduler-plugins project deploys
# its second scheduler under (manifests/install/as-a-second-scheduler).
DEFAULT_SCHEDULER_NAMES = {"volcano": "volcano", "scheduler-plugins": "scheduler-plugins-scheduler",
                           "kube-batch": "kube-batch"}


class Gang(_Model):
    """All-or-nothing scheduling: a PodGroup, as the operator creates with --gang-scheduling."""

    scheduler: Literal["volcano", "scheduler-plugins", "kube-batch"] = Field(
        description="The gang scheduler the cluster runs: Volcano (scheduling.volcano.sh/v1beta1 PodGroup), "
                    "scheduler-plugins coscheduling (scheduling.x-k8s.io/v1alpha1) or kube-batch "
                    "(scheduling.incubator.k8s.io/v1alpha1).", examples=["volcano"])
    schedulerName: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="schedulerName of the pods. Default: volcano, scheduler-plugins-scheduler or kube-batch.",
        examples=["scheduler-plugins-scheduler"])
    minAvailable: Optional[int] = Field(
        None, ge=1, le=100_001,
        description="PodGroup minMember. Default: workers + 1 (the launcher too); workers under a GitOps profile "
                    "or with waitForWorkers, where the launcher is created only once the workers are ready.",
        examples=[5])
    queue: Optional[str] = Field(None, pattern=DNS1123_SUBDOMAIN, max_length=253,
                                 description="Volcano queue (a Queue's name) of the PodGroup.", examples=["training"])
    scheduleTimeoutSeconds: Optional[int] = Field(
        None, ge=0, le=10**9, description="scheduler-plugins: how long the group may wait to be scheduled.",
        examples=[600])

    @property
    def scheduler_name(self) -> str:
        return self.schedulerName or DEFAULT_SCHEDULER_NAMES[self.scheduler]


class Scheduling(_Model):
    gang: Optional[Gang] = Field(None, description="Gang scheduling: all pods of the job start together or none do.")
    queue: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=63,  # a label value
        description="Kueue LocalQueue: the label kueue.x-k8s.io/queue-name on the workloads; Kueue's webhook "
                    "suspends them until the queue admits the job.", examples=["team-a-gpus"])


class Launcher(_Model):
    runAsWorker: bool = Field(
        False, description="The launcher also runs ranks, as one more worker (first in the hostfile, with the "
                           "workers' GPUs, shared memory and network): no CPU-only node is needed.")
    waitForWorkers: Optional[bool] = Field(
        None, description="Create the launcher only once every worker is ready (target mpijob v2beta1: "
                          "launcherCreationPolicy WaitForWorkersReady; the static target always waits, in its "
                          "kubectl-delivery init container). Default: true for IntelMPI and MPICH, else false.",
        examples=[True])


class RDMA(_Model):
    resource: ResourceName = Field(description="Extended resource of the RDMA, InfiniBand or EFA device plugin.",
                                   examples=["rdma/hca", "vpc.amazonaws.com/efa", "rdma/rdma_shared_device_a"])
    count: int = Field(1, ge=1, le=1024, description="Devices per rank pod.", examples=[32])
    ipcLock: bool = Field(True, description="Add the IPC_LOCK capability (RDMA pins memory).")


class Network(_Model):
    hostNetwork: bool = Field(
        False, description="Rank pods use the node's network (dnsPolicy ClusterFirstWithHostNet, and one worker per "
                           "node).")
    rdma: Optional[RDMA] = Field(None, description="RDMA devices for each rank pod.")
    secondaryNetworks: list[Annotated[str, Field(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=253)]] = Field(
        default_factory=list,
        description="Multus NetworkAttachmentDefinitions (name or namespace/name) attached to each rank pod "
                    "(annotation k8s.v1.cni.cncf.io/networks).", examples=[["sriov-ib0"]])


class Security(_Model):
    runAsUser: Optional[int] = Field(None, ge=0, le=2**31 - 1, description="UID of every container.",
                                     examples=[1000])
    runAsGroup: Optional[int] = Field(None, ge=0, le=2**31 - 1, description="GID of every container.",
                                      examples=[1000])
    fsGroup: Optional[int] = Field(None, ge=0, le=2**31 - 1,
                                   description="Group that owns mounted volumes (and can read the SSH keys).",
                                   examples=[1000])
    runAsNonRoot: Optional[bool] = Field(None, description="Refuse to start images that would run as root.",
                                         examples=[True])
    privileged: bool = Field(False, description="Privileged rank containers. Only when the blueprint asks in so "
                                                "many words; prefer capabilities.", examples=[False])
    capabilities: list[Literal[
        "IPC_LOCK", "SYS_NICE", "SYS_PTRACE", "SYS_RESOURCE", "NET_ADMIN", "NET_RAW", "SYS_ADMIN", "SYS_CHROOT",
        "CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL", "NET_BIND_SERVICE", "AUDIT_WRITE"]] = Field(
        default_factory=list, description="Linux capabilities added to the rank containers.",
        examples=[["SYS_NICE"]])
    sshAuthMountPath: Optional[AbsolutePath] = Field(
        None, description="Target mpijob v2beta1: where the SSH keys are mounted (default /root/.ssh); the home "
                          "folder of runAsUser for non-root images.", examples=["/home/mpiuser/.ssh"])


class ServiceAccount(_Model):
    name: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="An existing ServiceAccount the workers run as (the launcher keeps <name>-launcher, which its "
                    "Role is bound to).", examples=["training-data-reader"])
    annotations: dict[LabelKey, str] = Field(
        default_factory=dict,
        description="Cloud identity: mpigen creates the ServiceAccount <name>-identity with these annotations for "
                    "the workers and puts them on <name>-launcher too.",
        examples=[{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/training"}])

    @model_validator(mode="after")
    def _one(self) -> "ServiceAccount":
        if self.name is not None and self.annotations:
            raise ValueError("give either name (an existing ServiceAccount, whose annotations are its own) or "
                             "annotations (mpigen creates the ServiceAccount), not both")
        return self


# core/v1 PodSpec and Container fields (Kubernetes 1.30; a test compares them with the
# schema) that a blueprint may set through podTemplatePatch: all but those the blueprint
# has fields for, and those mpigen or the operator write.
POD_OWNED = {"containers": "the MPI container is the blueprint's (patch it under `container`)",
             "volumes": "volumes come from spec.datasets", "nodeSelector": "use spec.placement",
             "tolerations": "use spec.placement", "restartPolicy": "the operator sets it",
             "hostname": "the operator sets it", "subdomain": "the operator sets it"}
POD_FIELDS = (
    "activeDeadlineSeconds", "affinity", "automountServiceAccountToken", "containers", "dnsConfig", "dnsPolicy",
    "enableServiceLinks", "ephemeralContainers", "hostAliases", "hostIPC", "hostNetwork", "hostPID", "hostUsers",
    "hostname", "imagePullSecrets", "initContainers", "nodeName", "nodeSelector", "os", "overhead",
    "preemptionPolicy", "priority", "priorityClassName", "readinessGates", "resourceClaims", "restartPolicy",
    "runtimeClassName", "schedulerName", "schedulingGates", "securityContext", "serviceAccount",
    "serviceAccountName", "setHostnameAsFQDN", "shareProcessNamespace", "subdomain",
    "terminationGracePeriodSeconds", "tolerations", "topologySpreadConstraints", "volumes",
)
CONTAINER_OWNED = {"name": "use spec.mainContainer", "image": "use spec.image",
                   "command": "use spec.command or spec.launcherCommand", "args": "use spec.command",
                   "env": "use spec.env", "resources": "use spec.resources and spec.gpusPerWorker",
                   "volumeMounts": "mounts come from spec.datasets"}
CONTAINER_FIELDS = (
    "args", "command", "env", "envFrom", "image", "imagePullPolicy", "lifecycle", "livenessProbe", "name", "ports",
    "readinessProbe", "resizePolicy", "resources", "restartPolicy", "securityContext", "startupProbe", "stdin",
    "stdinOnce", "terminationMessagePath", "terminationMessagePolicy", "tty", "volumeDevices", "volumeMounts",
    "workingDir",
)


class RolePatch(_Model):
    pod: dict[str, Any] = Field(default_factory=dict,
                                description="JSON merge patch on the pod spec (fields the blueprint has no field for).",
                                examples=[{"securityContext": {"runAsUser": 1000}}])
    container: dict[str, Any] = Field(default_factory=dict,
                                      description="JSON merge patch on the MPI container.",
                                      examples=[{"securityContext": {"capabilities": {"add": ["IPC_LOCK"]}}}])


class PodTemplatePatch(_Model):
    launcher: RolePatch = Field(default_factory=RolePatch)
    worker: RolePatch = Field(default_factory=RolePatch)


class Spec(_Model):
    framework: Literal["horovod", "deepspeed", "pytorch", "tensorflow", "mxnet", "custom"] = Field(
        "custom", description="Chooses the mpirun flags the launcher gets (see the blueprint reference).")
    mpiImplementation: Literal["OpenMPI", "IntelMPI", "MPICH"] = Field(
        "OpenMPI", description="MPI implementation in the image: sets the hostfile format, the launcher "
                               "environment and the mpirun flags.")
    image: ImageReference = Field(
                       description="Container image of the launcher and the workers.",
                       examples=["horovod/horovod:0.28.1"])
    workers: int = Field(ge=1, le=100_000, description="Number of worker pods.", examples=[4])
    gpusPerWorker: int = Field(0, ge=0, le=1024, description="GPUs (or other accelerators) per worker.",
                               examples=[8])
    gpuResource: ResourceName = Field(
        "nvidia.com/gpu", description="Extended resource name of the accelerator.",
        examples=["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "amd.com/gpu"])
    slotsPerWorker: Optional[int] = Field(
        None, ge=1, le=100_000,
        description="MPI slots (ranks) per worker. Default: gpusPerWorker when it is > 0, else 1.", examples=[8])
    command: Optional[list[Arg]] = Field(
        None, min_length=1,
        description="The program each rank runs. Required unless launcherCommand is given.",
        examples=[["python", "/examples/train.py", "--epochs", "90"]])
    mpirunArgs: list[Arg] = Field(
        default_factory=list, description="Extra mpirun flags, placed before the program.",
        examples=[["-x", "NCCL_DEBUG"]])
    launcherCommand: Optional[list[Arg]] = Field(
        None, min_length=1,
        description="Replaces the whole launcher command (no mpirun line is generated).",
        examples=[["/bin/sh", "-c", "mpirun -np 8 python train.py"]])
    env: dict[EnvName, str] = Field(
        default_factory=dict,
        description="Environment of the launcher and the workers, in this order, forwarded to every rank.",
        examples=[{"NCCL_DEBUG": "INFO"}])
    resources: Resources = Field(default_factory=Resources, description="Resource limits per role.")
    datasets: list[Dataset] = Field(default_factory=list,
                                    description="Volumes mounted at the same path on the launcher and every worker.")
    runPolicy: RunPolicy = Field(default_factory=RunPolicy, description="Job-level policies, as the operator's.")
    placement: Placement = Field(default_factory=Placement,
                                 description="Node selection per role: nodeSelector, tolerations, affinity, one pod "
                                             "per node, priority.")
    podTemplatePatch: PodTemplatePatch = Field(
        default_factory=PodTemplatePatch,
        description="Escape hatch: pod spec and MPI container fields the blueprint has no field for, applied "
                    "last as JSON merge patches (e.g. what `mpigen import` cannot map).")
    sharedMemory: Optional[Quantity] = Field(
        None, description="Size of /dev/shm in each rank pod (a memory-backed emptyDir, counted against the memory "
                          "limit; 0 turns it off). Default for GPU jobs: 1Gi per GPU, at most half the memory limit "
                          "of the rank pods; none for CPU jobs (the runtime's 64 MiB).", examples=["16Gi"])
    launcher: Launcher = Field(default_factory=Launcher, description="How the launcher takes part in the job.")
    network: Network = Field(default_factory=Network, description="Host network, RDMA devices, secondary networks.")
    scheduling: Scheduling = Field(default_factory=Scheduling, description="Gang scheduling and Kueue queueing.")
    security: Security = Field(default_factory=Security, description="Identity and privileges of the containers.")
    imagePullSecrets: list[Annotated[str, Field(pattern=DNS1123_SUBDOMAIN, max_length=253)]] = Field(
        default_factory=list, description="Secrets (by name) for pulling the image from a private registry.",
        examples=[["registry-credentials"]])
    serviceAccount: ServiceAccount = Field(default_factory=ServiceAccount,
                                           description="The workers' Kubernetes identity (cloud IAM).")
    run: Optional[RunName] = Field(
        None, description="Run identity under a GitOps profile: change it (e.g. 1, 2, 3) to run the job again "
                          "with the same spec. Any change to what defines the run (image, command, workers, "
                          "GPUs, ...) starts a new run by itself.", examples=["2"])
    state: Literal["running", "completed", "archived"] = Field(
        "running", description="Lifecycle in Git: running; completed (the workers are scaled to 0 and release "
                               "their GPUs); archived (nothing is rendered, so the GitOps controller prunes the "
                               "job's objects).")
    mainContainer: Optional[str] = Field(
        None, pattern=DNS1123_LABEL, max_length=63,
        description="Name of the MPI container in launcher and worker pods; kubexec.sh then runs "
                    "`kubectl exec --container <mainContainer>` (the operator's spec.mainContainer).",
        examples=["trainer"])

    @property
    def slots(self) -> int:
        if self.slotsPerWorker is not None:
            return self.slotsPerWorker
        return self.gpusPerWorker if self.gpusPerWorker > 0 else 1

    @property
    def rank_hosts(self) -> int:
        """Pods that run ranks: the workers, and the launcher when it is one of them."""
        return self.workers + (1 if self.launcher.runAsWorker else 0)

    @property
    def wait_for_workers(self) -> bool:
        if self.launcher.waitForWorkers is not None:
            return self.launcher.waitForWorkers
        return self.mpiImplementation != "OpenMPI"


class Blueprint(_Model):
    """A job blueprint: what to run, on how many workers, with what data."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True,
                              title="MPIJobBlueprint",
                              json_schema_extra={"$id": "https://mpigen.dev/schemas/v1alpha1/mpijobblueprint.json"})

    apiVersion: Literal["mpigen.dev/v1alpha1"] = Field(description="Always mpigen.dev/v1alpha1.")
    kind: Literal["MPIJobBlueprint"] = Field(description="Always MPIJobBlueprint.")
    metadata: Metadata
    spec: Spec


def json_schema(model=None) -> dict:
    """The published JSON Schema of a model (the blueprint by default; also the Overlay
    and Config files)."""
    schema = (model or Blueprint).model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    _close_key_patterns(schema)
    return schema


def _close_key_patterns(node: Any) -> None:
    """pydantic writes constrained mapping keys as patternProperties, which lets any other
    key through; say instead that every key must match (propertyNames), as the model does."""
    if isinstance(node, dict):
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and len(patterns) == 1 and "additionalProperties" not in node:
            (pattern, values), = patterns.items()
            del node["patternProperties"]
            node["propertyNames"] = {**node.get("propertyNames", {}), "pattern": pattern}
            node["additionalProperties"] = values
        for value in node.values():
            _close_key_patterns(value)
    elif isinstance(node, list):
        for item in node:
            _close_key_patterns(item)
