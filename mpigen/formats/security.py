"""Security: the identity (user, groups, ServiceAccount) and privileges of the containers."""

from typing import Literal, Optional

from pydantic import Field, model_validator

from mpigen.formats.base import Model
from mpigen.formats.types import AbsolutePath, LabelKey
from mpigen.kube.names import DNS1123_SUBDOMAIN


class SeccompProfile(Model):
    """The seccomp profile of every container (the pod's securityContext.seccompProfile): Pod
    Security's restricted level requires RuntimeDefault or Localhost."""

    type: Literal["RuntimeDefault", "Localhost"] = Field(
        description="RuntimeDefault: the container runtime's default profile; Localhost: a profile file on the "
                    "node, named by localhostProfile.", examples=["RuntimeDefault"])
    localhostProfile: Optional[str] = Field(
        None, min_length=1, pattern=r"^[^/].*$",
        description="With type Localhost: the profile's path, relative to the kubelet's seccomp folder "
                    "(<kubelet root>/seccomp).", examples=["profiles/mpi.json"])

    @model_validator(mode="after")
    def _localhost(self) -> "SeccompProfile":
        if (self.type == "Localhost") != (self.localhostProfile is not None):
            raise ValueError("localhostProfile is required with type Localhost, and only with it")
        return self


class Security(Model):
    runAsUser: Optional[int] = Field(None, ge=0, le=2**31 - 1, description="UID of every container.",
                                     examples=[1000])
    runAsGroup: Optional[int] = Field(None, ge=0, le=2**31 - 1, description="GID of every container.",
                                      examples=[1000])
    fsGroup: Optional[int] = Field(None, ge=0, le=2**31 - 1,
                                   description="Group that owns mounted volumes (and can read the SSH keys).",
                                   examples=[1000])
    runAsNonRoot: Optional[bool] = Field(None, description="Refuse to start images that would run as root.",
                                         examples=[True])
    seccompProfile: Optional[SeccompProfile] = Field(
        None, description="The seccomp profile of every container (default: the cluster's, Unconfined unless the "
                          "kubelet defaults to RuntimeDefault); Pod Security's restricted level requires one.",
        examples=[{"type": "RuntimeDefault"}])
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


class ServiceAccount(Model):
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
