"""Network: host network, RDMA devices and secondary networks of the rank pods."""

from typing import Annotated, Optional

from pydantic import Field

from mpigen.formats.base import Model
from mpigen.formats.types import ResourceName


class RDMA(Model):
    resource: ResourceName = Field(description="Extended resource of the RDMA, InfiniBand or EFA device plugin.",
                                   examples=["rdma/hca", "vpc.amazonaws.com/efa", "rdma/rdma_shared_device_a"])
    count: int = Field(1, ge=1, le=1024, description="Devices per rank pod.", examples=[32])
    ipcLock: bool = Field(True, description="Add the IPC_LOCK capability (RDMA pins memory).")


class Network(Model):
    hostNetwork: bool = Field(
        False, description="Rank pods use the node's network (dnsPolicy ClusterFirstWithHostNet, and one worker per "
                           "node).")
    rdma: Optional[RDMA] = Field(None, description="RDMA devices for each rank pod.")
    secondaryNetworks: list[Annotated[str, Field(pattern=r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=253)]] = Field(
        default_factory=list,
        description="Multus NetworkAttachmentDefinitions (name or namespace/name) attached to each rank pod "
                    "(annotation k8s.v1.cni.cncf.io/networks).", examples=[["sriov-ib0"]])
