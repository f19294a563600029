"""The pretend clusters whose pods run the MPI Operator's v2beta1 examples' images: each pod of
the JobSet cluster (jobset_cluster.py), of the Trainer's (trainjob_cluster.py) and of the MPI
Operator's (mpijob_cluster.py) gets, on top of what every pretend pod has (image.py), what its
example's Dockerfile adds (operator_images.py: the ssh settings, mpiuser uid 1000 and its home,
pi compiled with the image's mpic++, the Horovod programs), so that a blueprint imported from
an example runs on every target with the same images.

The Intel example's image runs Intel MPI's mpirun, modelled by MPICH's Hydra with Intel's
variables (operator_images.intel_mpirun), in front of PATH in every pod.

A pod whose first container runs kubectl (the jobset target's keygen pod) keeps the machine's
root: its `keygen` init container, in the job's image, needs only ssh-keygen and a shell, which
the examples' images have as the machine has them."""

from __future__ import annotations

import json
from dataclasses import dataclass

from tests.support.e2e.filesystem import rootfs
from tests.support.e2e.image import is_kubectl_image, model_image
from tests.support.e2e.jobset_cluster import JobSetCluster
from tests.support.e2e.operator_images import intel_mpirun, model_example_image, write_late
from tests.support.e2e.pods import Pod
from tests.support.e2e.trainjob_cluster import TrainJobCluster

__all__ = ["ExampleJobSetCluster", "ExampleTrainJobCluster"]

INTEL_IMAGE = "mpioperator/mpi-pi:intel"  # examples/v2beta1/pi/intel.Dockerfile


@dataclass
class ExampleJobSetCluster(JobSetCluster):
    program: str = ""  # allreduce.py's arguments, for the Horovod examples' programs (operator_images.py)

    def start_api(self) -> None:
        super().start_api()
        if json.dumps(INTEL_IMAGE) in json.dumps(self.objects):
            self.image_env = {**self.image_env, "PATH": f"{intel_mpirun(self.public)}:{self.image_env['PATH']}"}

    def _create_pod(self, pod: Pod) -> None:
        model_image(pod, self.helpers)
        example = not is_kubectl_image(pod.container.get("image", ""))
        late = model_example_image(pod, self.program) if example else {}
        self.pods[pod.name] = pod
        self._start_pod(pod, len(self.pods))
        write_late(rootfs(pod), late)


@dataclass
class ExampleTrainJobCluster(ExampleJobSetCluster, TrainJobCluster):
    """The Trainer's JobSet (the replicated job `node` its workers) with the examples' images."""
