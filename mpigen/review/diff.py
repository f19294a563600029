"""Diff: what a change to the rendered manifests will do on the clusters.

`mpigen diff` runs on pull requests. A line diff of the output folder shows reviewers text;
this module shows them Kubernetes objects: which objects are added, removed or changed
(matched by environment, apiVersion, kind, namespace and name, never by file), the field
paths that change, the GPUs and MPI slots a job asks for before and after, whether the
change starts, ends or disturbs a run, and every change the API server refuses to apply in
place (Argo CD and Flux then fail to sync until someone deletes the object by hand).

compare() is pure: it takes both renders as {relative path: text} and returns a Report.
"""

from __future__ import annotations

import difflib
import html
import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from mpigen.errors import Diagnostic, InputError, Mark, error
from mpigen.kube.labels import JOB_LABEL
from mpigen.load.documents import Document, parse, value_at

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
JOB_LABELS = (JOB_LABEL, "mpi_job_name", "app")
REPLICA_FIELDS = {"StatefulSet": "replicas", "Deployment": "replicas", "ReplicaSet": "replicas",
                  "Job": "parallelism"}
# Fields the API server refuses to update (ValidateJobUpdate, ValidateStatefulSetUpdate, ...).
JOB_IMMUTABLE = ("template", "selector", "completions", "completionMode", "manualSelector",
                 "podFailurePolicy", "backoffLimitPerIndex", "managedBy")
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")
MAX_VALUE = 80  # characters of a one-line value shown in text and markdown


class _Absent:
    """The value of a field that one side does not have (None is a real YAML value)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT = _Absent()


@dataclass(frozen=True, order=True)
class ObjectKey:
    """What identifies an object on a cluster; the field order is the report's sort order."""

    environment: str
    namespace: str
    kind: str
    name: str
    api_version: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


@dataclass
class Manifest:
    """One object of a render, with the file and position it was read from."""

    key: ObjectKey
    data: dict
    path: str  # relative to the output folder
    mark: Mark


@dataclass
class FieldChange:
    """One leaf that differs; old or new is ABSENT when the field is added or removed."""

    path: str
    old: Any
    new: Any
    op: str = ""  # add, remove, change or reorder

    def __post_init__(self):
        if not self.op:
            self.op = "add" if self.old is ABSENT else "remove" if self.new is ABSENT else "change"


@dataclass
class ObjectChange:
    key: ObjectKey
    path: str
    fields: list[FieldChange]


@dataclass
class Finding:
    """A change Kubernetes refuses to apply in place."""

    key: ObjectKey
    path: str
    message: str


@dataclass
class JobDiff:
    """What changes for one job (environment, namespace, job label): reviewers think in runs."""

    environment: str
    namespace: str
    job: str
    added: list[Manifest] = field(default_factory=list)
    removed: list[Manifest] = field(default_factory=list)
    changed: list[ObjectChange] = field(default_factory=list)
    immutable: list[Finding] = field(default_factory=list)
    gpus: tuple[int, int] = (0, 0)
    slots: tuple[int, int] = (0, 0)
    new_run: bool = False
    ends_run: bool = False
    restarts_workers: bool = False

    def title(self) -> str:
        where = "/".join(part for part in (self.namespace, self.job) if part)
        title = f"job {where}" if self.job else "other objects" + (f" in {self.namespace}" if self.namespace else "")
        return title + (f" (env {self.environment})" if self.environment else "")


@dataclass
class Report:
    """Every job with a difference, sorted by environment, namespace and job."""

    old_label: str
    new_label: str
    jobs: list[JobDiff]

    def differs(self) -> bool:
        return bool(self.jobs)

    def immutable(self) -> bool:
        return any(job.immutable for job in self.jobs)

    def format(self, fmt: str) -> str:
        formats = {"text": _format_text, "markdown": _format_markdown, "json": _format_json}
        if fmt not in formats:
            raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(formats)}")
        return formats[fmt](self)


def compare(old_files: dict[str, str], new_files: dict[str, str],
            old_label: str = "old", new_label: str = "new") -> Report:
    """The difference between two renders, grouped by job. Raises InputError listing every
    file problem of both sides, so one run reports them all."""
    problems: list[Diagnostic] = []
    old = _read_render(old_files, old_label, problems)
    new = _read_render(new_files, new_label, problems)
    if problems:
        raise InputError(problems)
    jobs: dict[tuple, JobDiff] = {}
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before is not None and after is not None and _equal(before.data, after.data):
            continue
        group = _group(after or before)
        _record(jobs.setdefault(group, JobDiff(*group)), key, before, after)
    old_totals, new_totals = _totals(old.values()), _totals(new.values())
    for group, job in jobs.items():
        before, after = old_totals.get(group, (0, 0)), new_totals.get(group, (0, 0))
        job.gpus, job.slots = (before[0], after[0]), (before[1], after[1])
    return Report(old_label, new_label, [jobs[group] for group in sorted(jobs)])


def _record(job: JobDiff, key: ObjectKey, before: Manifest | None, after: Manifest | None) -> None:
    """Add one differing object to its job, with what it means for a run."""
    # A run is a launcher Job, or an MPIJob (the operator makes its launcher).
    launcher = (key.kind == "Job" and key.api_version.startswith("batch/")) or _is_mpijob(key)
    if before is None:
        job.added.append(after)
        job.new_run = job.new_run or launcher
    elif after is None:
        job.removed.append(before)
        job.ends_run = job.ends_run or launcher
    else:
        job.changed.append(ObjectChange(key, after.path, diff_values(before.data, after.data)))
        job.immutable += immutable_changes(key, before.data, after.data)
        if key.kind == "StatefulSet" and not _equal(_get(before.data, "spec", "template"),
                                                    _get(after.data, "spec", "template")):
            job.restarts_workers = True


# --- reading ---------------------------------------------------------------------------

def _read_render(files: dict[str, str], label: str, problems: list[Diagnostic]) -> dict[ObjectKey, Manifest]:
    """Every object of one render by key; problems are appended, not raised."""
    roots = {posixpath.dirname(path) for path in files if posixpath.basename(path) in KUSTOMIZATION_NAMES}
    objects: dict[ObjectKey, Manifest] = {}
    for path in sorted(files):
        if not _is_manifest(path):
            continue
        try:
            docs = parse(files[path], f"{label}/{path}")
        except InputError as exc:
            problems.extend(exc.diagnostics)
            continue
        for doc in docs:
            problems.extend(doc.problems)
            if doc.data is None or doc.problems:
                continue
            try:
                key = _object_key(doc, _environment(path, roots))
            except InputError as exc:
                problems.extend(exc.diagnostics)
                continue
            first = objects.get(key)
            if first is not None:
                problems.append(error(doc.start, f"{key} is defined twice in {label} (first at {first.mark}); "
                                                 "keep one"))
                continue
            objects[key] = Manifest(key, doc.data, path, doc.start)
    return objects


def _is_manifest(path: str) -> bool:
    """Object files only: kustomization files, dotfiles and other files are not objects."""
    name = posixpath.basename(path)
    hidden = any(part.startswith(".") and part not in (".", "..") for part in path.split("/"))
    return name.endswith((".yaml", ".yml")) and name not in KUSTOMIZATION_NAMES and not hidden


def _environment(path: str, roots: set[str]) -> str:
    """The nearest folder above path holding a kustomization file: an overlay such as `dev`."""
    folder = posixpath.dirname(path)
    while folder not in roots and folder:
        folder = posixpath.dirname(folder)
    return folder if folder in roots else ""


def _object_key(doc: Document, environment: str) -> ObjectKey:
    """The key of a document, or an InputError at the field that makes it no object."""
    data = doc.data
    if not isinstance(data, dict):
        raise InputError([error(doc.start, "expected a Kubernetes object: a mapping with apiVersion, kind "
                                           "and metadata.name")])
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    for loc, value in ((("apiVersion",), data.get("apiVersion")), (("kind",), data.get("kind")),
                       (("metadata", "name"), name)):
        if not isinstance(value, str) or not value:
            raise InputError([error(doc.value_mark(loc), f"not a Kubernetes object: {'.'.join(loc)} is missing, "
                                                         "empty or not a string")])
    namespace = metadata.get("namespace")
    return ObjectKey(environment, namespace if isinstance(namespace, str) else "", data["kind"], name,
                     data["apiVersion"])


def _group(manifest: Manifest) -> tuple[str, str, str]:
    """(environment, namespace, job): the job is read from the labels mpigen and the operator write."""
    labels = _get(manifest.data, "metadata", "labels")
    job = ""
    if isinstance(labels, dict):
        job = next((labels[k] for k in JOB_LABELS if isinstance(labels.get(k), str) and labels[k]), "")
    return manifest.key.environment, manifest.key.namespace, job


def _get(data: Any, *loc: str) -> Any:
    return value_at(data, loc, ABSENT)


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _equal(a: Any, b: Any) -> bool:
    """Deep equality that, like Kubernetes, tells true from 1 and 1.0 from 1."""
    if a is ABSENT or b is ABSENT:
        return a is b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# --- field diff --------------------------------------------------------------------------

def diff_values(old: Any, new: Any, path: str = "") -> list[FieldChange]:
    """The leaf changes between two values, mappings key by key and lists item by item."""
    if _equal(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        changes = []
        for key in sorted(old.keys() | new.keys()):
            changes += diff_values(old.get(key, ABSENT), new.get(key, ABSENT), _key_path(path, key))
        return changes
    if isinstance(old, list) and isinstance(new, list):
        return _diff_named(old, new, path) if _named(old) and _named(new) else _diff_indexed(old, new, path)
    return [FieldChange(path, old, new)]


def _named(items: list) -> bool:
    """Lists such as containers, env and volumes: mappings with unique names, matched by name."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    return all(isinstance(name, str) for name in names) and len(set(names)) == len(names)


def _diff_named(old: list, new: list, path: str) -> list[FieldChange]:
    old_by, new_by = {item["name"]: item for item in old}, {item["name"]: item for item in new}
    changes = []
    for name in sorted(old_by.keys() | new_by.keys()):
        changes += diff_values(old_by.get(name, ABSENT), new_by.get(name, ABSENT), f"{path}[{name}]")
    old_order = [name for name in old_by if name in new_by]
    new_order = [name for name in new_by if name in old_by]
    if old_order != new_order:  # order matters for env ($(VAR) expansion) and containers
        changes.append(FieldChange(path, list(old_by), list(new_by), "reorder"))
    return changes


def _diff_indexed(old: list, new: list, path: str) -> list[FieldChange]:
    changes = []
    for index in range(max(len(old), len(new))):
        changes += diff_values(old[index] if index < len(old) else ABSENT,
                               new[index] if index < len(new) else ABSENT, f"{path}[{index}]")
    return changes


def _key_path(path: str, key: str) -> str:
    """spec.template, or labels["mpigen.dev/job"] for keys that are not plain words."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


# --- immutable fields ----------------------------------------------------------------------

def immutable_changes(key: ObjectKey, old: dict, new: dict) -> list[Finding]:
    """One finding per immutable field that changes between old and new."""
    findings = []
    for loc in _guarded_fields(key, old, new):
        if not _equal(_get(old, *loc), _get(new, *loc)):
            path = ".".join(loc)
            findings.append(Finding(key, path, f"Kubernetes refuses to change {path} of {key}: Argo CD and Flux "
                                               "will fail to sync it; delete and recreate the object (give the "
                                               "run a new name) instead"))
    return findings


def _guarded_fields(key: ObjectKey, old: dict, new: dict) -> list[tuple[str, ...]]:
    """The fields of this kind of object that the API server refuses to update."""
    group = key.api_version.rpartition("/")[0]
    kind = key.kind
    old_spec, new_spec = _mapping(old.get("spec")), _mapping(new.get("spec"))
    spec_keys = sorted(old_spec.keys() | new_spec.keys())
    if group == "batch" and kind == "Job":
        return [("spec", name) for name in JOB_IMMUTABLE]
    if group == "apps" and kind == "StatefulSet":
        return [("spec", name) for name in spec_keys if name not in STATEFULSET_MUTABLE]
    if group == "apps" and kind in ("Deployment", "DaemonSet", "ReplicaSet"):
        return [("spec", "selector")]
    if group == "" and kind == "Service":
        return [("spec", name) for name in ("clusterIP", "clusterIPs") if old_spec.get(name) not in (None, "", [])]
    if group == "rbac.authorization.k8s.io" and kind in ("RoleBinding", "ClusterRoleBinding"):
        return [("roleRef",)]
    if group == "" and kind in ("ConfigMap", "Secret") and old.get("immutable") is True:
        names = ("immutable", "data", "binaryData") + (("stringData",) if kind == "Secret" else ())
        return [(name,) for name in names]
    if group == "" and kind == "PersistentVolumeClaim":
        resources = _mapping(old_spec.get("resources")).keys() | _mapping(new_spec.get("resources")).keys()
        return ([("spec", name) for name in spec_keys if name not in ("resources", "volumeAttributesClassName")]
                + [("spec", "resources", name) for name in sorted(resources) if name != "requests"])
    return []


# --- GPUs and slots --------------------------------------------------------------------------

def _totals(manifests) -> dict[tuple, tuple[int, int]]:
    """(GPUs, slots) per job of one render."""
    totals: dict[tuple, tuple[int, int]] = {}
    for manifest in manifests:
        gpus, slots = totals.get(_group(manifest), (0, 0))
        totals[_group(manifest)] = (gpus + _gpus(manifest), slots + _slots(manifest))
    return totals


def _is_mpijob(key: ObjectKey) -> bool:
    return key.kind == "MPIJob" and key.api_version.startswith("kubeflow.org/")


def _replica_specs(spec: dict) -> list[tuple[int, dict]]:
    """(replicas, pod spec) of each of an MPIJob's replica specs (a suspended job has none
    running)."""
    if _get(spec, "runPolicy", "suspend") is True:
        return []
    out = []
    for role, replica in _mapping(spec.get("mpiReplicaSpecs")).items():
        replica = _mapping(replica)
        count = _count(replica.get("replicas"), default=1 if role == "Launcher" else 0)
        out.append((count, _mapping(_mapping(replica.get("template")).get("spec"))))
    return out


def _gpus(manifest: Manifest) -> int:
    """Replicas times the accelerators of one pod (init containers are not counted)."""
    kind, spec = manifest.key.kind, _mapping(manifest.data.get("spec"))
    if kind == "Pod":
        return _pod_gpus(spec)
    if _is_mpijob(manifest.key):
        return sum(count * _pod_gpus(pod) for count, pod in _replica_specs(spec))
    if kind not in REPLICA_FIELDS:
        return 0
    replicas = _count(spec.get(REPLICA_FIELDS[kind]), default=1)
    return replicas * _pod_gpus(_mapping(_mapping(spec.get("template")).get("spec")))


def _pod_gpus(pod_spec: dict) -> int:
    from mpigen.formats.blueprint import is_accelerator

    total = 0
    containers = pod_spec.get("containers")
    for container in containers if isinstance(containers, list) else []:
        resources = _mapping(_mapping(container).get("resources"))
        limits, requests = _mapping(resources.get("limits")), _mapping(resources.get("requests"))
        for name in limits.keys() | requests.keys():
            if is_accelerator(name):
                total += _count(limits.get(name, requests.get(name)), default=0)
    return total


def _slots(manifest: Manifest) -> int:
    if _is_mpijob(manifest.key):  # slotsPerWorker (the operators' default 1) per worker
        spec = _mapping(manifest.data.get("spec"))
        workers = _mapping(_mapping(spec.get("mpiReplicaSpecs")).get("Worker"))
        if _get(spec, "runPolicy", "suspend") is True:
            return 0
        return _count(spec.get("slotsPerWorker"), default=1) * _count(workers.get("replicas"), default=0)
    if manifest.key.kind != "ConfigMap":
        return 0
    hostfile = _get(manifest.data, "data", "hostfile")
    return hostfile_slots(hostfile) if isinstance(hostfile, str) else 0


def hostfile_slots(text: str) -> int:
    """Slots of a hostfile: `host slots=N` (Open MPI), `host:N` (Intel MPI, MPICH), `host` (1)."""
    total = 0
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        slots = next((f.partition("=")[2] for f in fields[1:] if f.startswith("slots=")), None)
        if slots is None and ":" in fields[0]:
            slots = fields[0].rpartition(":")[2]
        total += _count(slots, default=1)
    return total


def _count(value: Any, default: int) -> int:
    """A whole number written as 8 or "8"; anything else (Kubernetes would refuse it) is default."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return default


# --- formats -----------------------------------------------------------------------------------

def _show(value: Any, shorten: bool = True) -> str:
    """A value as JSON on one line, cut to MAX_VALUE characters."""
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text[:MAX_VALUE - 3] + "..." if shorten and len(text) > MAX_VALUE else text


def _multiline(change: FieldChange) -> bool:
    sides = (change.old, change.new)
    return (all(isinstance(s, str) or s is ABSENT for s in sides)
            and any(isinstance(s, str) and "\n" in s.rstrip("\n") for s in sides))


def _line_diff(old: Any, new: Any) -> list[str]:
    """A small unified diff (no file header) of two multi-line strings."""
    a = "" if old is ABSENT else old
    b = "" if new is ABSENT else new
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))[2:]
    return lines or [" (only the final line break differs)"]


def _text_change(change: FieldChange) -> list[str]:
    if change.op == "reorder":
        return [f"{change.path}: order of items {_show(change.old)} -> {_show(change.new)}"]
    if _multiline(change):
        return [f"{change.path}:"] + ["  " + line for line in _line_diff(change.old, change.new)]
    return [f"{change.path}: {_show(change.old)} -> {_show(change.new)}"]


def _facts(job: JobDiff, arrow: str = "->") -> list[str]:
    """GPUs and slots (when there are any) and what the change does to a run."""
    facts = []
    for label, (old, new) in (("GPUs", job.gpus), ("slots", job.slots)):
        if old or new:
            facts.append(f"{label} {old} {arrow} {new}" + (" (changed)" if old != new else ""))
    if job.new_run:
        facts.append("starts a new run: a launcher Job is created")
    if job.ends_run:
        facts.append("ends the run: a launcher Job is deleted")
    if job.restarts_workers:
        facts.append("restarts the workers: a running launcher loses its ranks")
    return facts


def _summary(report: Report) -> str:
    def count(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    added = sum(len(job.added) for job in report.jobs)
    removed = sum(len(job.removed) for job in report.jobs)
    changed = sum(len(job.changed) for job in report.jobs)
    immutable = sum(len(job.immutable) for job in report.jobs)
    return (f"{report.old_label} -> {report.new_label}: {count(len(report.jobs), 'job')} changed; "
            f"objects: {added} added, {removed} removed, {changed} changed; {count(immutable, 'immutable change')}")


def _format_text(report: Report) -> str:
    if not report.differs():
        return "no changes\n"
    lines = []
    for job in report.jobs:
        lines.append(job.title())
        lines += [f"IMMUTABLE: {finding.message}" for finding in job.immutable]
        lines += ["  " + fact for fact in _facts(job)]
        lines += [f"  + added {m.key}" for m in job.added]
        lines += [f"  - removed {m.key}" for m in job.removed]
        for change in job.changed:
            lines.append(f"  ~ changed {change.key}")
            lines += ["      " + line for field_change in change.fields for line in _text_change(field_change)]
        lines.append("")
    return "\n".join(lines + [_summary(report)]) + "\n"


def _md(text: str) -> str:
    """Text with the characters markdown would read as formatting escaped."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)


def _markdown_change(change: FieldChange) -> list[str]:
    """Lines for a ```diff fence: removed values red, added values green."""
    if _multiline(change):
        body = ["    " + line if line.startswith("@@") else line[0] + "     " + line[1:]
                for line in _line_diff(change.old, change.new)]
        return [f"  {change.path}:"] + body
    suffix = " (order)" if change.op == "reorder" else ""
    lines = [f"- {change.path}{suffix}: {_show(change.old)}"] if change.old is not ABSENT else []
    return lines + ([f"+ {change.path}{suffix}: {_show(change.new)}"] if change.new is not ABSENT else [])


def _fence(lines: list[str], language: str) -> list[str]:
    """A code fence longer than any run of backticks inside it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language] + lines + [fence]


def _markdown_row(job: JobDiff) -> str:
    def delta(pair: tuple[int, int]) -> str:
        old, new = pair
        return "" if not (old or new) else f"{old} → {new}" if old == new else f"**{old} → {new}**"

    notes = (["⚠️ immutable"] if job.immutable else []) + (["new run"] if job.new_run else []) \
        + (["ends run"] if job.ends_run else []) + (["restarts workers"] if job.restarts_workers else [])
    objects = f"+{len(job.added)} −{len(job.removed)} ~{len(job.changed)}"
    where = "/".join(part for part in (job.namespace, job.job) if part) if job.job else "other objects"
    return f"| {_md(where)} | {_md(job.environment)} | {objects} | {delta(job.gpus)} | {delta(job.slots)} | " \
           f"{', '.join(notes)} |"


def _markdown_details(job: JobDiff) -> list[str]:
    lines = [f"<details><summary>{html.escape(job.title())}</summary>", ""]
    lines += [f"- ⚠️ **immutable**: `{finding.path}` of `{finding.key}`" for finding in job.immutable]
    lines += [f"- {_md(fact)}" for fact in _facts(job, "→")]
    lines += [f"- added `{m.key}`" for m in job.added]
    lines += [f"- removed `{m.key}`" for m in job.removed]
    diff = []
    for change in job.changed:
        diff.append(f"@@ changed {change.key} @@")
        diff += [line for field_change in change.fields for line in _markdown_change(field_change)]
    if diff:
        lines += [""] + _fence(diff, "diff")
    return lines + ["", "</details>", ""]


def _format_markdown(report: Report) -> str:
    lines = [f"### mpigen diff: `{report.old_label}` → `{report.new_label}`", ""]
    if not report.differs():
        return "\n".join(lines + ["No changes."]) + "\n"
    findings = [finding for job in report.jobs for finding in job.immutable]
    if findings:
        lines += ["> [!WARNING]", f"> ⚠️ **{len(findings)} change(s) Kubernetes refuses to apply in place.** "
                                  "Argo CD and Flux will fail to sync them.", ">"]
        lines += [f"> - ⚠️ {_md(finding.message)}" for finding in findings] + [""]
    lines += ["| Job | Environment | Objects | GPUs | Slots | Notes |", "|---|---|---|---|---|---|"]
    lines += [_markdown_row(job) for job in report.jobs] + [""]
    for job in report.jobs:
        lines += _markdown_details(job)
    return "\n".join(lines + [_summary(report)]) + "\n"


def _object_json(key: ObjectKey, path: str) -> dict:
    return {"apiVersion": key.api_version, "kind": key.kind, "namespace": key.namespace, "name": key.name,
            "file": path}


def _none(value: Any) -> Any:
    return None if value is ABSENT else value


def _job_json(job: JobDiff) -> dict:
    return {
        "environment": job.environment, "namespace": job.namespace, "job": job.job,
        "added": [_object_json(m.key, m.path) for m in job.added],
        "removed": [_object_json(m.key, m.path) for m in job.removed],
        "changed": [{**_object_json(c.key, c.path),
                     "fields": [{"path": f.path, "op": f.op, "old": _none(f.old), "new": _none(f.new)}
                                for f in c.fields]} for c in job.changed],
        "gpus": {"old": job.gpus[0], "new": job.gpus[1]},
        "slots": {"old": job.slots[0], "new": job.slots[1]},
        "newRun": job.new_run, "endsRun": job.ends_run, "restartsWorkers": job.restarts_workers,
        "immutable": [{"object": str(f.key), "path": f.path, "message": f.message} for f in job.immutable],
    }


def _format_json(report: Report) -> str:
    jobs = [_job_json(job) for job in report.jobs]
    summary = {"jobs": len(jobs), "immutable": sum(len(job["immutable"]) for job in jobs)}
    for kind in ("added", "removed", "changed"):
        summary[kind] = sum(len(job[kind]) for job in jobs)
    data = {"old": report.old_label, "new": report.new_label, "differs": report.differs(),
            "immutable": report.immutable(), "summary": summary, "jobs": jobs}
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
