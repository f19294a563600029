"""The render options the command line takes from the table of targets: the --target help
made of each target's line, and each target's flags parsed into Flags by their names."""

from __future__ import annotations

import argparse
from dataclasses import replace

from mpigen.cli import arguments
from mpigen.cli.main import parse
from mpigen.render import targets
from mpigen.render.target import Flag, Setting, TargetOptions

# The --target help as it was written by hand, before the targets declared it.
TARGET_HELP = ("static: the objects the MPI Operator (v1alpha2) would create (default); "
               "jobset: one JobSet per job, ranks started over SSH (needs JobSet); "
               "mpijob: the MPIJob resource, for clusters that run an operator; "
               "trainjob: a Kubeflow Trainer v2 TrainJob and its runtime")


def test_the_target_help_is_each_target_s_line_the_default_first():
    assert arguments.target_help() == TARGET_HELP


def test_the_targets_flags_reach_the_options_by_name():
    args, _ = parse(["render", "--target", "mpijob", "--with-crd", "--mpijob-api", "kubeflow.org/v1",
                     "--kubectl-delivery-image", "registry.example.com/kd:1", "--stdout"])
    assert arguments.flags(args, None).target_flags == {
        "--kubectl-delivery-image": "registry.example.com/kd:1", "--with-crd": True, "--mpijob-api": "kubeflow.org/v1"}
    args, _ = parse(["render", "--stdout"])
    assert arguments.flags(args, None).target_flags == {
        "--kubectl-delivery-image": None, "--with-crd": None, "--mpijob-api": None}


def test_a_target_in_the_table_alone_brings_its_flag_and_help_line(monkeypatch):
    flag = Flag("--colour", help="with --target toy: the colour", choices=("red", "blue"))
    toy = replace(targets.TARGETS["jobset"], name="toy", options=TargetOptions("a toy", (Setting("colour", flag),)))
    monkeypatch.setattr(targets, "TARGETS", {**targets.TARGETS, "toy": toy})
    command = argparse.ArgumentParser()
    arguments.inputs(command)
    args = command.parse_args(["--target", "toy", "--colour", "red"])
    assert arguments.flags(args, None).target_flags["--colour"] == "red"
    assert arguments.target_help() == TARGET_HELP.replace("; trainjob", "; toy: a toy; trainjob")
    assert "with --target toy: the colour" in command.format_help()
