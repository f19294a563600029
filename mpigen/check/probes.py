"""What the API server refuses of the MPI container's probes as a podTemplatePatch writes them
(podTemplatePatch.<role>.container.livenessProbe, readinessProbe, startupProbe), judged on the
compiled container (a patch merges into the probe mpigen writes itself, e.g. IntelMPI's and
MPICH's readiness probe) after the API server's defaults (pkg/apis/core/v1/defaults.go
SetDefaults_Probe: timeoutSeconds 0 is 1, periodSeconds 0 is 10, successThreshold 0 is 1,
failureThreshold 0 is 3). Kubernetes v1.30 pkg/apis/core/validation/validation.go:
- validateProbe -> validateHandler (handlerFromProbe): exactly one of exec, httpGet, tcpSocket
  and grpc ("must specify a handler type", "may not specify more than 1 handler type");
  validateExecAction: a command (field.Required); validateHTTPGetAction, validateTCPSocketAction
  (ValidatePortNumOrName): a port 1-65535 or a name IsValidPortName takes; validateGRPCAction:
  a port 1-65535 (IsValidPortNum);
- validateProbe: initialDelaySeconds, timeoutSeconds, periodSeconds, successThreshold and
  failureThreshold not negative (ValidateNonnegativeField: "must be greater than or equal to
  0"; a 0 is the default's), terminationGracePeriodSeconds, where given, above 0 ("must be
  greater than 0");
- validateLivenessProbe, validateStartupProbe: successThreshold 1 ("must be 1");
  validateReadinessProbe: no terminationGracePeriodSeconds ("must not be set for
  readinessProbes");
- validateLifecycle: its lifecycle hooks (postStart, preStop) by the same validateHandler
  (handlerFromLifecycle): exactly one of exec, httpGet, tcpSocket and sleep, an exec with a
  command, a port as a probe's."""

from __future__ import annotations

from typing import Any

from mpigen.check.container_rules import port_name_problems

Problem = tuple[str, tuple, str]  # (where in the template: "container", "pod" or "metadata"; path; message)
KINDS = ("livenessProbe", "readinessProbe", "startupProbe")
HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")  # a probe's handlers (handlerFromProbe)
HOOKS = ("postStart", "preStop")
HOOK_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")  # a lifecycle hook's (handlerFromLifecycle)
NONNEGATIVE = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")
_ONE_SUCCESS = ("livenessProbe", "startupProbe")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def probe_problems(template: dict) -> list[Problem]:
    """Each problem of the MPI container's probes, with its path in the container."""
    containers = template.get("spec", {}).get("containers") or [{}]
    container = containers[0] if isinstance(containers[0], dict) else {}
    out: list[Problem] = []
    for kind in KINDS:
        probe = container.get(kind)
        if isinstance(probe, dict):
            out += [("container", (kind,) + path, f"{message} (validate{kind[0].upper()}{kind[1:]})") for path, message in
                    (*_handler(probe), *_numbers(kind, probe))]
    return out


def lifecycle_problems(template: dict) -> list[Problem]:
    """Each problem of the MPI container's lifecycle hooks, with its path in the container."""
    containers = template.get("spec", {}).get("containers") or [{}]
    container = containers[0] if isinstance(containers[0], dict) else {}
    lifecycle = container.get("lifecycle")
    out: list[Problem] = []
    for hook in HOOKS if isinstance(lifecycle, dict) else ():
        if isinstance(lifecycle.get(hook), dict):
            out += [("container", ("lifecycle", hook) + path, f"{message} (validateLifecycle)")
                    for path, message in _handler(lifecycle[hook], HOOK_HANDLERS, "a lifecycle hook")]
    return out


def _handler(probe: dict, handlers: tuple[str, ...] = HANDLERS, what: str = "a probe") -> list[tuple[tuple, str]]:
    given = [key for key in handlers if probe.get(key) is not None]
    if not given:
        return [((), f"{what} needs one handler, {', '.join(handlers[:-1])} or {handlers[-1]} (\"must specify a "
                     "handler type\")")]
    out = [((key,), f"{what} has one handler, and this one also has {given[0]} (\"may not specify more than 1 "
                    "handler type\")") for key in given[1:]]
    action = probe[given[0]]
    if not isinstance(action, dict):
        return out
    if given[0] == "exec" and not action.get("command"):
        out.append(((given[0], "command"), f"{what}'s exec needs a command (field.Required)"))
    if given[0] in ("httpGet", "tcpSocket", "grpc"):
        out += [((given[0], "port"), problem) for problem in _port(action.get("port"), named=given[0] != "grpc")]
    return out


def _port(port: Any, named: bool) -> list[str]:
    """ValidatePortNumOrName (named) or IsValidPortNum."""
    if _int(port):
        return [] if 1 <= port <= 65535 else [f"the port {port} is not a port number (1 to 65535)"]
    if named and isinstance(port, str) and port:
        problems = port_name_problems(port)
        return [f"the port name {port!r} {'; '.join(problems)}"] if problems else []
    return ["a probe's port is required" if port in (None, "", 0) else f"the port {port!r} is not a port number"]


def _numbers(kind: str, probe: dict) -> list[tuple[tuple, str]]:
    out = [((key,), f"{key} {probe[key]} must be greater than or equal to 0 (ValidateNonnegativeField; 0 takes the "
                    "default)") for key in NONNEGATIVE if _int(probe.get(key)) and probe[key] < 0]
    success = probe.get("successThreshold")
    if kind in _ONE_SUCCESS and _int(success) and success not in (0, 1):
        out.append((("successThreshold",), f"successThreshold {success} \"must be 1\" for a {kind}, which restarts "
                                           "or starts the container at the first success"))
    grace = probe.get("terminationGracePeriodSeconds")
    if kind == "readinessProbe" and grace is not None:
        out.append((("terminationGracePeriodSeconds",), "terminationGracePeriodSeconds \"must not be set for "
                                                        "readinessProbes\" (validateReadinessProbe)"))
    elif _int(grace) and grace <= 0:
        out.append((("terminationGracePeriodSeconds",), f"terminationGracePeriodSeconds {grace} \"must be greater "
                                                        "than 0\""))
    return out
