"""What the benchmark sets beside mpigen: the same jobs' objects made by `kubectl kustomize`
and by one Helm chart, and the cold start of one blueprint as `python -X importtime` shows it.

Both are lower bounds of what those tools cost to produce these manifests: kustomize builds
the three environment folders mpigen wrote (it only reads and writes the objects again), and
the chart's values hold every job's objects, which its one template prints with toYaml (a
chart that builds them from a shorter description of each job does more work).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ENVS = ("dev", "staging", "prod")
_TEMPLATE = """{{- range .Values.objects }}
---
{{ toYaml . }}
{{- end }}
"""


def helm_chart(root: Path, folder: Path) -> None:
    """root/chart, with root/values-<env>.json holding the objects of folder/<env>."""
    chart = root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: jobs\nversion: 0.1.0\n")
    (chart / "templates" / "jobs.yaml").write_text(_TEMPLATE)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for env in ENVS:
        objects = []
        for path in sorted((folder / env).rglob("*.yaml")):
            if path.name != "kustomization.yaml":
                objects.extend(d for d in yaml.load_all(path.read_text(), Loader=loader) if d)
        (root / f"values-{env}.json").write_text(json.dumps({"objects": objects}))


def helm_command(helm: Path) -> list[str]:
    script = " && ".join(f"{helm} template jobs chart -f values-{env}.json >/dev/null" for env in ENVS)
    return ["sh", "-c", script]


def kustomize_command(kubectl: Path, folder: str) -> list[str]:
    script = " && ".join(f"{kubectl} kustomize {folder}/{env} >/dev/null" for env in ENVS)
    return ["sh", "-c", script]


def import_times(root: Path, single: Path, pythonpath: str) -> list[str]:
    """Where the cold start of one blueprint to stdout goes: the import time of each top-level
    package (its modules' own times summed), largest first, from `python -X importtime`."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mpigen", "render", str(single), "--stdout"],
                          cwd=root, capture_output=True, text=True, env={"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin"})
    own: dict[str, int] = defaultdict(int)
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)", line)
        if match:
            own[match.group(3).split(".")[0].lstrip("_") or match.group(3)] += int(match.group(1))
    total = sum(own.values())
    ranked = sorted(own.items(), key=lambda item: -item[1])
    shown = [f"{name} {micro / 1000:.0f} ms" for name, micro in ranked[:8]]
    rest = total - sum(micro for _, micro in ranked[:8])
    return [f"imports {total / 1000:.0f} ms: " + ", ".join(shown) + f", the rest {rest / 1000:.0f} ms"]


if __name__ == "__main__":  # python bench/compare.py ROOT FOLDER: helm_chart(ROOT, FOLDER)
    helm_chart(Path(sys.argv[1]), Path(sys.argv[2]))
