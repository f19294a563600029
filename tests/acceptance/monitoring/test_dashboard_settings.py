"""Where the dashboard is switched on: `monitoring.dashboard` in mpigen.yaml for every monitored
environment, inherited as `monitoring` is (an overlay's `monitoring` replaces it whole), its
ConfigMap in the PrometheusRule's namespace or its own, with the sidecar's label and the user's;
a misspelt key refused at its line; the builders missing, an error at the `dashboard` line, nothing written;
and a render of environments without a dashboard never loads the builders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.command_line import run_mpigen
from tests.support.monitored_repository import CONFIG, DIGEST, repository

BOARD = CONFIG + "  dashboard: {enabled: true, labels: {team: ml}}\n"


def dashboards(repo: Path) -> list[str]:
    return sorted(p.relative_to(repo).as_posix() for p in (repo / "rendered").rglob("configmap-mpigen-*-dashboard.yaml"))


def test_mpigen_yaml_gives_every_environment_a_dashboard_and_an_overlay_replaces_it(tmp_path):
    repo = repository(tmp_path, BOARD)
    done = run_mpigen("render", cwd=repo, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert dashboards(repo) == [f"rendered/dev/monitoring/configmap-mpigen-dev-{DIGEST}-dashboard.yaml",
                                f"rendered/prod/monitoring/configmap-mpigen-prod-{DIGEST}-dashboard.yaml"]
    board = yaml.safe_load((repo / dashboards(repo)[0]).read_text().split("\n", 2)[2])
    assert board["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "mpigen", "grafana_dashboard": "1",
                                           "team": "ml"}
    dev = repo / "overlays" / "dev" / "overlay.yaml"
    dev.write_text(dev.read_text() + "monitoring:\n  runbookURL: https://example.com/monitoring.md\n"
                                     "  dashboard: {enabled: true, namespace: grafana}\n")
    prod = repo / "overlays" / "prod" / "overlay.yaml"
    prod.write_text(prod.read_text() + "monitoring:\n  runbookURL: https://example.com/monitoring.md\n")
    done = run_mpigen("render", cwd=repo, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    (dev_board,) = dashboards(repo)  # prod's monitoring, its own, has none
    assert dev_board.startswith("rendered/dev/grafana/configmap-mpigen-dev-")


def test_a_misspelt_key_is_refused_at_its_line(tmp_path):
    repo = repository(tmp_path, CONFIG + "  dashboard: {enabeld: true}\n")
    done = run_mpigen("render", cwd=repo, timeout=120)
    assert done.returncode == 2
    assert done.stderr.decode() == ("mpigen.yaml:8:15: error: monitoring.dashboard: unknown key 'enabeld'; "
                                    "did you mean 'enabled'?\n")
    assert not (repo / "rendered").exists()


# The render, with grafana_foundation_sdk made unimportable (None in sys.modules).
_WITHOUT_SDK = ("import sys\nsys.modules['grafana_foundation_sdk'] = None\n"
                "from mpigen.cli.main import main\nsys.exit(main(sys.argv[1:]))\n")


def test_without_the_builders_a_dashboard_is_an_error_naming_the_file(tmp_path):
    repo = repository(tmp_path, BOARD)
    done = subprocess.run([sys.executable, "-c", _WITHOUT_SDK, "render"], cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("mpigen.yaml:8:3: error: monitoring.dashboard needs"), done.stderr
    assert "pip install 'mpigen[dashboard]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (repo / "rendered").exists()
