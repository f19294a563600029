"""The accelerator resources the device plugins advertise (kube.accelerators): each name as its
plugin's documentation spells it is known, a misspelt one is not and gets the intended name."""

from __future__ import annotations

import pytest

from mpigen.kube.accelerators import KNOWN_ACCELERATORS, is_known_accelerator, nearest_known_accelerator

# As the plugins' READMEs and docs write them (the sources are cited in kube/accelerators.py).
DOCUMENTED = ["nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "nvidia.com/mig-3g.20gb", "nvidia.com/mig-7g.80gb",
              "nvidia.com/gpu.shared", "amd.com/gpu", "gpu.intel.com/i915", "gpu.intel.com/xe", "habana.ai/gaudi",
              "aws.amazon.com/neuron", "aws.amazon.com/neuroncore", "google.com/tpu"]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_a_documented_resource_is_known(name):
    assert is_known_accelerator(name)


@pytest.mark.parametrize("pattern, example", KNOWN_ACCELERATORS)
def test_each_name_offered_is_one_the_table_knows(pattern, example):
    assert is_known_accelerator(example)
    assert nearest_known_accelerator(example) == example


@pytest.mark.parametrize("typo, meant", [
    ("nvidia.com/gpus", "nvidia.com/gpu"), ("nvida.com/gpu", "nvidia.com/gpu"), ("nvidia.con/gpu", "nvidia.com/gpu"),
    ("amd.com/gpus", "amd.com/gpu"), ("habana.ai/gaudi2", "habana.ai/gaudi"), ("google.com/tpus", "google.com/tpu"),
    ("aws.amazon.com/neuron-core", "aws.amazon.com/neuroncore"), ("gpu.intel.com/i195", "gpu.intel.com/i915"),
    ("nvidia.com/mig_1g.5gb", "nvidia.com/mig-1g.5gb"), ("nvidia.com/mig-", "nvidia.com/mig-1g.5gb"),
])
def test_a_misspelt_resource_is_unknown_and_gets_the_name_meant(typo, meant):
    assert not is_known_accelerator(typo)
    assert nearest_known_accelerator(typo) == meant


def test_a_name_like_none_gets_no_guess():
    assert not is_known_accelerator("example.com/fpga")
    assert nearest_known_accelerator("example.com/fpga") is None
