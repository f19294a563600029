"""The workers' readiness as the kubelet probes it: a tcpSocket readinessProbe succeeds when a
TCP connection to the pod's address and port opens within timeoutSeconds (the kubelet dials
from the node; here from the pod's network namespace, to the same address). The probe runs
every 0.1 s instead of every periodSeconds, which only makes the test quicker: a pod is Ready
after successThreshold successes in a row either way."""

from __future__ import annotations

import subprocess
import time

from tests.support.e2e.errors import Unsupported
from tests.support.e2e.pods import Pod

PROBE_INTERVAL = 0.1


def probe_port(pod: Pod, container: dict) -> int | None:
    """The readinessProbe's tcpSocket port (a number, or a named containerPort), or None."""
    probe = container.get("readinessProbe")
    if probe is None:
        return None
    if set(probe) - {"tcpSocket", "periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold",
                     "initialDelaySeconds"}:
        raise Unsupported(f"{pod.name}: readinessProbe {sorted(probe)}: only tcpSocket is modelled")
    port = probe["tcpSocket"]["port"]
    if isinstance(port, str):
        port = next(p["containerPort"] for p in container.get("ports", []) if p.get("name") == port)
    return int(port)


def accepts(pod: Pod, port: int, timeout: float) -> bool:
    done = subprocess.run(["nsenter", f"--net=/run/netns/{pod.name}", "--", "timeout", str(timeout), "bash", "-c",
                           f"exec 3<>/dev/tcp/{pod.ip}/{port}"], capture_output=True)
    return done.returncode == 0


def wait_ready(pod: Pod, container: dict, deadline: float) -> bool:
    """Probe until the pod is Ready (True) or the deadline (time.monotonic()) passes (False).
    A pod without a readinessProbe is Ready once its container runs."""
    port = probe_port(pod, container)
    if port is None:
        return True
    probe = container["readinessProbe"]
    timeout, needed = probe.get("timeoutSeconds", 1), probe.get("successThreshold", 1)
    successes = 0
    while time.monotonic() < deadline:
        successes = successes + 1 if accepts(pod, port, timeout) else 0
        if successes >= needed:
            return True
        time.sleep(PROBE_INTERVAL)
    return False
