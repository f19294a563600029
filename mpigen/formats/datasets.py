"""Datasets: the volumes a job mounts at the same path on the launcher and every worker."""

from typing import Annotated, Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.formats.types import AbsolutePath, Arg, EnvName, ImageReference, Quantity
from mpigen.kube.names import DNS1123_LABEL, DNS1123_SUBDOMAIN


class NFS(Model):
    server: str = Field(min_length=1, max_length=253, pattern=r"^[^\s]+$",
                        description="NFS server host name or address.", examples=["fs-0123.efs.example.com"])
    path: AbsolutePath = Field(description="Exported path on the server.", examples=["/imagenet"])


class CSI(Model):
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


class EmptyDir(Model):
    """Node-local scratch, one per pod, gone with the pod."""

    medium: Literal["", "Memory"] = Field(
        "", description='"" (the node\'s disk) or Memory (a tmpfs, whose contents count against the memory '
                        "limit of the container that writes them).", examples=["Memory"])
    sizeLimit: Optional[Quantity] = Field(
        None, description="The most the volume may hold: above it the kubelet evicts the pod (disk), or the tmpfs "
                          "is full (Memory). A positive quantity; with medium Memory at most the memory limit of "
                          "the roles that mount it.", examples=["64Gi"])


class Ephemeral(Model):
    """A generic ephemeral volume: a ReadWriteOnce claim of its own for each pod, created and
    deleted with the pod."""

    storageClass: Optional[str] = Field(
        None, pattern=DNS1123_SUBDOMAIN, max_length=253,
        description="StorageClass of each pod's claim (default: the cluster's default class).",
        examples=["local-nvme"])
    size: Quantity = Field(description="Storage each pod's claim requests, a positive quantity.",
                           examples=["200Gi"])


class Download(Model):
    """An init step that fills a shared dataset before any rank starts."""

    image: Optional[ImageReference] = Field(None,
                                 description="Image of the download step (default: spec.image).",
                                 examples=["amazon/aws-cli:2.17.0"])
    command: list[Arg] = Field(min_length=1, description="Command that writes the data under the dataset's mountPath.",
                               examples=[["aws", "s3", "sync", "s3://bucket/imagenet", "/data/imagenet"]])
    env: dict[EnvName, str] = Field(default_factory=dict, description="Environment of the download step.",
                                    examples=[{"AWS_REGION": "us-east-1"}])


DATASET_SOURCES = ("pvc", "nfs", "hostPath", "csi", "configMap", "secret", "emptyDir", "ephemeral")
# Sources of which each pod gets its own, empty at the pod's start: writable, and shared with no other pod.
SCRATCH_SOURCES = ("emptyDir", "ephemeral")


class Dataset(Model):
    name: str = Field(pattern=DNS1123_LABEL, max_length=63,
                      description="Volume name, a DNS-1123 label.", examples=["imagenet"])
    mountPath: AbsolutePath = Field(description="Where the data appears, the same on the launcher and every worker.",
                                    examples=["/data/imagenet"])
    readOnly: bool = Field(True, description="Mount read-only. Set false for an output or checkpoint volume, "
                                             "which must then be shared by every worker (pvc, nfs or csi). "
                                             "Scratch (emptyDir, ephemeral) is writable: false unless given, "
                                             "and true is refused.",
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
    emptyDir: Optional[EmptyDir] = Field(
        None, description="Source: node-local scratch, an empty folder of each pod's own (the node's disk, or "
                          "memory), deleted with the pod.")
    ephemeral: Optional[Ephemeral] = Field(
        None, description="Source: a generic ephemeral volume, a ReadWriteOnce claim of each pod's own from a "
                          "StorageClass, created with the pod and deleted with it.")
    download: Optional[Download] = Field(
        None, description="An init step on the launcher that fills this dataset before mpirun starts; the dataset "
                          "must be shared (pvc, nfs or csi) so that every worker sees what it wrote.")

    @model_validator(mode="before")
    @classmethod
    def _scratch_is_writable(cls, data):
        """Scratch starts empty and belongs to one pod: its mount is writable unless readOnly says
        otherwise (which mpigen.validate.datasets refuses at its line)."""
        if isinstance(data, dict) and "readOnly" not in data and any(key in data for key in SCRATCH_SOURCES):
            return {**data, "readOnly": False}
        return data

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
