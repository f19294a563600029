"""Golden output of the examples:
- golden/static/ (the `-o` folder, as users commit it) and golden/static.yaml (the
  `--stdout` stream): blueprints/ alone, the operator-exact output; the same for the
  GitOps profiles in golden/argocd[.yaml] and golden/flux[.yaml]; the other targets in
  golden/mpijob-*, crd-* and jobset[-argocd|-flux]; an environment with monitoring on in
  golden/monitored[-jobset]; the trainjob target under Trainer v2.4 in golden/trainjob-v2.4;
- golden/overlays/<overlay>/: every blueprint for every overlay of mpigen.yaml, as
  `mpigen render` writes this repository (and `mpigen check` verifies it).

    python -m tests.support.golden --update     # or: make golden

regenerates all of them after a reviewed change; read the diff before committing it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
# The examples the mpijob target refuses, with the field it refuses: an MPIJob has no failure
# policy (docs/blueprints.md, "Failure policies"; tests/acceptance/test_examples_clean.py shows
# the refusal).
MPIJOB_REFUSED = {"blueprints/failure-policy.yaml": "spec.runPolicy.failurePolicy"}
MPIJOB_EXAMPLES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "blueprints").glob("*.yaml")
                         if p.relative_to(ROOT).as_posix() not in MPIJOB_REFUSED)


def examples_for(target: str) -> list[str]:
    """The paths that render the examples under `target`: blueprints/, less what it refuses."""
    return list(MPIJOB_EXAMPLES) if target == "mpijob" else ["blueprints"]


def config_target(target: str) -> str:
    """mpigen.yaml's lines that render the examples with `target`: under mpijob, the jobs it
    refuses go to jobset, as a repository's targets rule sends them (docs/overlays.md)."""
    if target != "mpijob":
        return f"target: {target}\n"
    refused = [yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))["metadata"]["name"] for path in MPIJOB_REFUSED]
    return f"target: {target}\ntargets:\n" + "".join(f"  - jobs: {{name: {name}}}\n    target: jobset\n"
                                                      for name in refused)
CASES = {
    "static": ["blueprints", "--target", "static", "--gitops", "none"],
    "argocd": ["blueprints", "--target", "static", "--gitops", "argocd"],
    "flux": ["blueprints", "--target", "static", "--gitops", "flux"],
    # every example but those --target mpijob refuses (MPIJOB_REFUSED)
    "mpijob-v2beta1": [*MPIJOB_EXAMPLES, "--target", "mpijob", "--mpijob-api", "kubeflow.org/v2beta1"],
    # the training-operator's v1 runs Open MPI only (its hostfile is Open MPI's)
    "mpijob-v1": ["blueprints/tensorflow-mnist.yaml", "blueprints/resnet50-imagenet.yaml",
                  "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1"],
    # the generated CRD (with one MPIJob), for each API
    "crd-v2beta1": ["blueprints/tensorflow-mnist.yaml", "--target", "mpijob", "--with-crd"],
    "crd-v1": ["blueprints/tensorflow-mnist.yaml", "--target", "mpijob", "--mpijob-api", "kubeflow.org/v1",
               "--with-crd"],
    # one JobSet per example, in each GitOps profile
    "jobset": ["blueprints", "--target", "jobset", "--gitops", "none"],
    "jobset-argocd": ["blueprints", "--target", "jobset", "--gitops", "argocd"],
    "jobset-flux": ["blueprints", "--target", "jobset", "--gitops", "flux"],
    # one TrainJob and the TrainingRuntime mpigen writes per example, in each GitOps profile
    "trainjob": ["blueprints", "--target", "trainjob", "--gitops", "none"],
    "trainjob-argocd": ["blueprints", "--target", "trainjob", "--gitops", "argocd"],
    "trainjob-flux": ["blueprints", "--target", "trainjob", "--gitops", "flux"],
    # an environment with monitoring on (overlays/monitored: prod, and the PrometheusRule of its
    # jobs' alerts, docs/monitoring.md), with the default target and with jobset
    "monitored": ["blueprints", "--overlay", "monitored"],
    "monitored-jobset": ["blueprints", "--overlay", "monitored", "--target", "jobset"],
    # the trainjob target for clusters that run Kubeflow Trainer v2.4 (overlays/trainer-v2.4)
    "trainjob-v2.4": ["blueprints", "--overlay", "trainer-v2.4", "--target", "trainjob", "--gitops", "none"],
}


def render_stream(case: str) -> bytes:
    done = subprocess.run([sys.executable, "-m", "mpigen", "render", "--stdout", *CASES[case]],
                          cwd=ROOT, capture_output=True, check=True)
    return done.stdout


def render_folder(case: str, out: Path) -> None:
    subprocess.run([sys.executable, "-m", "mpigen", "render", "-o", str(out), *CASES[case]],
                   cwd=ROOT, capture_output=True, check=True)


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# The example overlays rendered in each GitOps profile (the flag wins over the overlays'
# own `gitops`): golden/overlays-<profile>/<overlay>/.
OVERLAY_CASES = {profile: ["--overlay", "dev", "--overlay", "prod", "--gitops", profile]
                 for profile in ("none", "argocd", "flux")}


def render_overlays(profile: str, out: Path) -> None:
    subprocess.run([sys.executable, "-m", "mpigen", "render", *OVERLAY_CASES[profile], "-o", str(out)],
                   cwd=ROOT, capture_output=True, check=True)


def render_repository() -> subprocess.CompletedProcess:
    """`mpigen render` in the repository: mpigen.yaml says what and where."""
    return subprocess.run([sys.executable, "-m", "mpigen", "render"], cwd=ROOT, capture_output=True, check=True)


def update() -> None:
    render_repository()
    print("updated golden/overlays/")
    for profile in OVERLAY_CASES:
        render_overlays(profile, GOLDEN / f"overlays-{profile}")
        print(f"updated golden/overlays-{profile}/")
    for case in CASES:
        (GOLDEN / f"{case}.yaml").write_bytes(render_stream(case))
        render_folder(case, GOLDEN / case)
        print(f"updated golden/{case}.yaml and golden/{case}/")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.support.golden --update")
    update()
