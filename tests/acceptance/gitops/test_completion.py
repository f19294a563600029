"""Completion under a GitOps profile: on success the launcher scales its workers to 0; the
wrapper runs in a real `sh` with a fake mpirun and a fake kubectl, and expands the command as
Kubernetes would without it (the one exception to the rule above: the launcher's mpirun line
under a profile must be exactly the one `--gitops none` renders for the same blueprint).

Expected values are worked out by hand from the blueprint text written in each test (and
from blueprints/*.yaml for the examples), never by rendering the same input twice and
comparing the code with itself. Rendering goes in-process through the real pipeline
(`render_paths`, the render fixture of conftest.py) or the real command line (the cli fixture).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.gitops import KUBECTL, PODS_RULE, PROFILES, Rendered, blueprint, launcher_command, pod, strings


# --- 5. completion: the launcher scales its workers to 0 on success --------------------------------

TRICKY_COMMAND = ["python", "train.py", "--name=a b", "it's", '"double"', "$HOME", "${PATH}", "`id`",
                  "$(date)", "a\\b", "*", "", "line1\nline2", "--x=;echo pwned", "&&", "#not a comment", "~"]
TRICKY_MPIRUN_ARGS = ["--mca", "btl_tcp_if_include", "eth0 eth1", "-x", "X=$Y", "--tag-output"]


def _fake_tools(tmp_path: Path) -> tuple[Path, Path]:
    """bin/mpirun (records its argv as JSON, exits with $FAKE_MPIRUN_EXIT) and a kubectl
    (appends its argv as a JSON line, exits with $FAKE_KUBECTL_EXIT)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    mpirun = folder / "mpirun"
    mpirun.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                      "open(os.environ['FAKE_MPIRUN_LOG'], 'w').write(json.dumps(sys.argv[1:]))\n"
                      "sys.exit(int(os.environ['FAKE_MPIRUN_EXIT']))\n")
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                       "open(os.environ['FAKE_KUBECTL_LOG'], 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
                       "sys.exit(int(os.environ.get('FAKE_KUBECTL_EXIT', '0')))\n")
    for tool in (mpirun, kubectl):
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder, kubectl


@dataclass
class Launch:
    returncode: int
    stderr: str
    mpirun: list[str] | None
    kubectl: list[list[str]]


def run_script(tmp_path: Path, command: list[str], mpirun_exit: int, kubectl_exit: int = 0) -> Launch:
    """Run a wrapped launcher command (["/bin/sh", "-c", SCRIPT, NAME, *ARGS]) as the
    container runtime would, with the fake kubectl in place of /opt/kube/kubectl."""
    folder, kubectl = _fake_tools(tmp_path)
    script = command[2]
    assert script.count(KUBECTL) == 1
    logs = tmp_path / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}",
           "FAKE_MPIRUN_LOG": str(logs / "mpirun.json"), "FAKE_MPIRUN_EXIT": str(mpirun_exit),
           "FAKE_KUBECTL_LOG": str(logs / "kubectl.jsonl"), "FAKE_KUBECTL_EXIT": str(kubectl_exit),
           "HOME": "/home/nobody", "Y": "expanded"}
    done = subprocess.run(["sh", "-c", script.replace(KUBECTL, str(kubectl)), *command[3:]], env=env,
                          capture_output=True, text=True, timeout=30)
    mpirun_log, kubectl_log = logs / "mpirun.json", logs / "kubectl.jsonl"
    return Launch(done.returncode, done.stderr,
                  json.loads(mpirun_log.read_text()) if mpirun_log.exists() else None,
                  [json.loads(line) for line in kubectl_log.read_text().splitlines()] if kubectl_log.exists() else [])


def wrapped_script(rendered: Rendered) -> list[str]:
    """The wrapped launcher command: the script, then $0, then the program's arguments
    (never pasted into the script text)."""
    command = launcher_command(rendered)
    assert command[:2] == ["/bin/sh", "-c"] and len(command) >= 5, command
    return command


def scale_rule(workers: str) -> dict:
    return {"apiGroups": ["apps"], "resources": ["statefulsets", "statefulsets/scale"], "resourceNames": [workers],
            "verbs": ["get", "patch", "update"]}


def _canonical_rules(rules: list[dict]) -> list[str]:
    return sorted(json.dumps({k: sorted(v) for k, v in rule.items()}, sort_keys=True) for rule in rules)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("policy", ["Running", "All"])
def test_on_success_the_launcher_scales_its_workers_to_zero(render, tmp_path, profile, policy):
    spec = dict(framework="horovod", workers=3, command=TRICKY_COMMAND, mpirunArgs=TRICKY_MPIRUN_ARGS,
                runPolicy={"cleanPodPolicy": policy})
    original = launcher_command(render(blueprint("train", namespace="ml", **spec), "none"))
    assert original[0] == "mpirun" and "^openib" in original  # the operator's line, run without a shell
    rendered = render(blueprint("train", namespace="ml", **spec), profile)
    script = wrapped_script(rendered)
    workers = f"train-{rendered.run}-worker"

    ok = run_script(tmp_path, script, mpirun_exit=0)
    assert ok.mpirun == original[1:]
    assert ok.kubectl == [["scale", "statefulset", workers, "--namespace", "ml", "--replicas=0"]]
    assert ok.returncode == 0, ok.stderr

    failed = run_script(tmp_path, script, mpirun_exit=3)
    assert failed.mpirun == original[1:]
    assert failed.kubectl == []
    assert failed.returncode == 3

    # the Role may scale exactly this StatefulSet, and nothing else is added
    rules = rendered.kinds["Role"]["rules"]
    exec_rule = {"verbs": ["create"], "apiGroups": [""], "resources": ["pods/exec"],
                 "resourceNames": [f"{workers}-{i}" for i in range(3)]}
    assert _canonical_rules(rules) == _canonical_rules([PODS_RULE, exec_rule, scale_rule(workers)])
    assert rules[:2] == [PODS_RULE, exec_rule]


def test_a_failed_scale_down_does_not_fail_the_succeeded_run(render, tmp_path):
    rendered = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "argocd")
    done = run_script(tmp_path, wrapped_script(rendered), mpirun_exit=0, kubectl_exit=1)
    assert done.returncode == 0
    assert len(done.kubectl) == 1
    assert "could not scale the workers to 0" in done.stderr


@pytest.mark.parametrize("profile", PROFILES)
def test_launcher_command_is_wrapped_too(render, tmp_path, profile):
    launcher = ["mpirun", "-np", "2", "--host", "a b", "it's", "$HOME", "^openib"]
    text = blueprint("train", command=None, launcherCommand=launcher, runPolicy={"cleanPodPolicy": "All"})
    assert launcher_command(render(text, "none")) == launcher
    rendered = render(text, profile)
    done = run_script(tmp_path, wrapped_script(rendered), mpirun_exit=0)
    assert done.mpirun == launcher[1:]
    assert done.kubectl == [["scale", "statefulset", f"train-{rendered.run}-worker", "--namespace", "team",
                             "--replicas=0"]]
    assert scale_rule(f"train-{rendered.run}-worker") in rendered.kinds["Role"]["rules"]


@pytest.mark.parametrize("profile", ("none",) + PROFILES)
def test_cleanpodpolicy_none_has_no_wrapper_and_no_extra_rule(render, profile):
    spec = dict(framework="horovod", command=TRICKY_COMMAND, mpirunArgs=TRICKY_MPIRUN_ARGS)
    rendered = render(blueprint("train", **spec), profile)
    command = launcher_command(rendered)
    assert command[0] == "mpirun" and command[-len(TRICKY_COMMAND):] == TRICKY_COMMAND
    assert [rule["resources"] for rule in rendered.kinds["Role"]["rules"]] == [["pods"], ["pods/exec"]]
    assert not any("scale statefulset" in text for text in strings(rendered.kinds["Job"]))


def test_without_a_profile_running_or_all_adds_no_wrapper(render):
    rendered = render(blueprint("train", runPolicy={"cleanPodPolicy": "Running"}), "none")
    assert launcher_command(rendered) == ["mpirun", "-np", "2", "--allow-run-as-root", "python", "train.py"]
    assert len(rendered.kinds["Role"]["rules"]) == 2


def kubernetes_expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' expansion of container command and args (third_party/forked/golang/
    expansion): $(VAR) becomes the value of a variable of the container's env, an unknown
    $(VAR) stays as it is, $$ becomes $, any other $ is kept."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "$" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt == "(":
                end = text.find(")", i + 2)
                if end != -1:
                    name = text[i + 2:end]
                    out.append(env[name] if name in env else f"$({name})")
                    i = end + 1
                    continue
                out.append("$(")
                i += 2
                continue
            out.append("$" + nxt)
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def test_kubernetes_expand_follows_the_apiserver_rules():
    env = {"A": "x y", "B": "it's"}
    assert kubernetes_expand("$(A)-$(B)-$(C)-$$(A)-$A-$-$(", env) == "x y-it's-$(C)-$(A)-$A-$-$("


def _launch_under_kubernetes(render, tmp_path, env: dict, command: list[str], profile: str):
    text = blueprint("train", env=env, command=command, runPolicy={"cleanPodPolicy": "Running"})
    plain = render(text, "none")
    container_env = {e["name"]: e.get("value", "") for e in pod(plain.kinds["Job"])["containers"][0]["env"]}
    expected = [kubernetes_expand(arg, container_env) for arg in launcher_command(plain)]
    rendered = render(text, profile)
    command = [kubernetes_expand(arg, container_env) for arg in wrapped_script(rendered)]
    return expected, run_script(tmp_path, command, mpirun_exit=0)


def test_env_references_in_the_command_expand_as_without_the_wrapper(render, tmp_path):
    """Kubernetes expands $(VAR) in the command before the shell reads the script; values
    without quotes reach mpirun as they would without the wrapper."""
    expected, done = _launch_under_kubernetes(render, tmp_path, {"DATA": "/data/a b", "N": "$HOME"},
                                              ["python", "train.py", "--data=$(DATA)", "$(N)", "$$(DATA)"], "argocd")
    assert expected[-3:] == ["--data=/data/a b", "$HOME", "$(DATA)"]
    assert done.mpirun == expected[1:]
    assert done.returncode == 0


def test_env_reference_to_a_value_with_a_single_quote_survives_the_wrapper(render, tmp_path):
    expected, done = _launch_under_kubernetes(render, tmp_path, {"MSG": "it's"},
                                              ["python", "train.py", "--msg=$(MSG)"], "argocd")
    assert expected[-1] == "--msg=it's"
    assert done.mpirun == expected[1:]
    assert done.returncode == 0
