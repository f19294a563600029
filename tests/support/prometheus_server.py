"""A real Prometheus (Debian's /usr/bin/prometheus, from the `prometheus` package `make
install-test` installs) over series a test writes: the series are written as OpenMetrics text,
turned into TSDB blocks by `promtool tsdb create-blocks-from openmetrics` (Prometheus' backfill),
and served by a Prometheus started on them at a free local port, its HTTP API queried
(`/api/v1/query_range`) as Grafana's Prometheus data source queries it.

Series are given as for the promtool tests (tests.support.alert_series: `(metric, labels) ->
value`, one dict per minute), from a start time in Unix seconds."""

from __future__ import annotations

import json
import math
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.support.alert_series import Key
from tests.support.promtool import PROMTOOL

PROMETHEUS = Path("/usr/bin/prometheus")
STEP = 60  # seconds between the samples written and between the points of a query_range


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def openmetrics(windows: list[tuple[int, list[dict[Key, float]]]]) -> str:
    """The OpenMetrics text of the series: each window is (its start, Unix seconds; a dict of
    series per minute). A series' samples in time order, a metric's series together, `# EOF`."""
    samples: dict[Key, list[tuple[int, float]]] = {}
    for start, minutes in windows:
        for minute, series in enumerate(minutes):
            for key, value in series.items():
                samples.setdefault(key, []).append((start + STEP * minute, value))
    lines = []
    for (metric, labels), points in sorted(samples.items()):
        inner = ",".join(f'{name}="{_escaped(value)}"' for name, value in labels if value != "")
        for at, value in sorted(points):
            lines.append(f"{metric}{{{inner}}} {float(value)!r} {at}")
    return "\n".join(lines) + "\n# EOF\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Prometheus:
    """A Prometheus serving a TSDB of backfilled blocks; `query_range` asks it."""

    url: str
    process: subprocess.Popen

    def query_range(self, expr: str, start: int, end: int) -> list[dict]:
        """The series `expr` gives from start to end (Unix seconds), a point per STEP."""
        params = urllib.parse.urlencode({"query": expr, "start": start, "end": end, "step": STEP})
        with urllib.request.urlopen(f"{self.url}/api/v1/query_range?{params}", timeout=60) as answer:
            body = json.load(answer)
        assert body["status"] == "success", body
        return body["data"]["result"]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start(folder: Path, windows: list[tuple[int, list[dict[Key, float]]]]) -> Prometheus:
    """Backfill the series into `folder`/data and start a Prometheus on it (stop it with
    `stop`). Retention is long: the series are dated in the past, and Prometheus deletes blocks
    older than its retention when it opens them."""
    data, source = folder / "data", folder / "series.om"
    source.write_text(openmetrics(windows), encoding="utf-8")
    done = subprocess.run([str(PROMTOOL), "tsdb", "create-blocks-from", "openmetrics", "-q", str(source), str(data)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    config = folder / "prometheus.yml"
    config.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n", encoding="utf-8")
    port = _free_port()
    log = (folder / "prometheus.log").open("w")
    process = subprocess.Popen([str(PROMETHEUS), f"--config.file={config}", f"--storage.tsdb.path={data}",
                                "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{port}"],
                               stdout=log, stderr=subprocess.STDOUT)
    server = Prometheus(f"http://127.0.0.1:{port}", process)
    _wait_ready(server, folder / "prometheus.log")
    return server


def _wait_ready(server: Prometheus, log: Path) -> None:
    """Until /-/ready answers 200 (the TSDB is open), or Prometheus exits."""
    for _ in range(600):
        if server.process.poll() is not None:
            raise AssertionError("prometheus exited: " + log.read_text(encoding="utf-8")[-3000:])
        try:
            with urllib.request.urlopen(f"{server.url}/-/ready", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.1)
    server.stop()
    raise AssertionError("prometheus did not get ready: " + log.read_text(encoding="utf-8")[-3000:])


def has_data(result: list[dict]) -> bool:
    """Some series of a query_range answer has a point that is a number."""
    return any(not math.isnan(float(value)) for series in result for _, value in series["values"])


def installed() -> bool:
    return PROMETHEUS.is_file() and PROMTOOL.is_file() and shutil.which(str(PROMETHEUS)) is not None
