"""SSH: how the launcher reaches the workers on the targets that start ranks over SSH (jobset)."""

from typing import Annotated, Optional

from pydantic import Field

from mpigen.formats.base import Model
from mpigen.formats.types import AbsolutePath, ImageReference
from mpigen.kube.names import DNS1123_SUBDOMAIN

DEFAULT_SSH_PORT = 2222  # the MPI Operator's images: a non-root sshd, and no clash with a node's sshd
# kubectl for the key generator: the official image (published since Kubernetes 1.28), of the
# Kubernetes version the output is written for.
DEFAULT_KUBECTL_IMAGE = "registry.k8s.io/kubectl:v1.30.14"


class SSH(Model):
    """The SSH bootstrap of target jobset (docs/ssh.md). The job's image must have the OpenSSH
    server at /usr/sbin/sshd and the client (ssh) on its PATH; the rendered scripts stop,
    naming the one missing, when it does not."""

    keySecret: Optional[Annotated[str, Field(pattern=DNS1123_SUBDOMAIN, max_length=253)]] = Field(
        None, description="A kubernetes.io/ssh-auth Secret the platform provides (keys ssh-privatekey and "
                          "ssh-publickey), e.g. made by External Secrets, Sealed Secrets or SOPS. Default: a fresh "
                          "key per run, made in the cluster by the job's ssh-keygen step; no key is ever rendered.",
        examples=["training-ssh"])
    port: int = Field(DEFAULT_SSH_PORT, ge=1, le=65535,
                      description="Port of the workers' sshd (above 1023, a non-root sshd can bind it).",
                      examples=[2222])
    kubectlImage: ImageReference = Field(
        DEFAULT_KUBECTL_IMAGE,
        description="Image with kubectl that stores the generated key as a Secret (default key strategy only); "
                    "point it at a mirror in air-gapped clusters.", examples=[DEFAULT_KUBECTL_IMAGE])
    keygenImage: Optional[ImageReference] = Field(
        None,
        description="Image of the step that makes the run's key with ssh-keygen (default key strategy only): a "
                    "small image with a POSIX shell, ssh-keygen and base64, in which the job's user "
                    "(spec.security.runAsUser) has an /etc/passwd entry, as ssh-keygen stops for a user it cannot "
                    "look up. Default: the job's image, which has them since its workers run sshd, but which is "
                    "then pulled whole onto the node that runs the step.",
        examples=["registry.example.com/tools/openssh-client:9.6"])
    sshdConfig: Optional[AbsolutePath] = Field(
        None,
        description="Target mpijob (kubeflow.org/v2beta1): the sshd configuration file in the job's image that the "
                    "workers' sshd reads (`/usr/sbin/sshd -De -f <it>`), for images that run sshd as a user who is "
                    "not root, such as the MPI Operator's (/home/mpiuser/.sshd_config). Default: root's sshd keeps "
                    "the operator's `/usr/sbin/sshd -De`; another user's gets mpigen's line, which needs no file "
                    "(docs/ssh.md). Targets jobset and trainjob run mpigen's own configuration, for any user.",
        examples=["/home/mpiuser/.sshd_config"])
