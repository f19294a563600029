"""The names a doc says mpigen's render produces, found in its text, and matched against what a
render wrote (tests/acceptance/test_docs_names.py).

A doc names what mpigen writes in four forms, each found by its shape:
- a Flux Kustomization or an Argo CD Application: a word `mpigen-...` that is not a file, a
  version, a link's anchor or a part of a longer name (`.mpigen-index`), nor one of
  NOT_RENDERED;
- the end of one: a quoted `-word` on a line that, or whose line before, speaks of a
  Kustomization or an Application;
- a path of what a render writes: a word that starts with one of the render's folders
  (`rendered/dev`, `./rendered/dev/...`, `clusters/flux/...`), a quoted path with a
  placeholder (`<ns>/<kind>-<name>.yaml`), or a quoted folder (`workers/`) on a line about the
  output folder or a kustomize root;
- an object's name quoted from golden output: a word that starts with the name of an example
  job, on a line (or in the block after a paragraph) that links a file of golden/.

A name struck through (`~~...~~`) is one the doc says no render writes any more (the name a
Kustomization had before it was renamed): it claims nothing, and is not checked.

Placeholders are patterns bound to the render, never skipped: `<overlay>` stands for one of the
render's environments, `<ns>` for one of its namespaces, `<job>` for one of its jobs, `<run>`
for six hex digits, and so on (placeholders); `*` and `...` for the rest of a name or path. An
unknown placeholder is a problem of its own, so that a new one is bound before it is used.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from mpigen.emit.layout import CLUSTER_FOLDER
from mpigen.render.targets import TARGETS

# Words `mpigen-...` the docs use that are not a generated Kustomization or Application.
NOT_RENDERED = {
    "mpigen-validate": "a pre-commit hook's id (.pre-commit-hooks.yaml)",
    "mpigen-render": "a pre-commit hook's id (.pre-commit-hooks.yaml)",
    "mpigen-check": "a pre-commit hook's id (.pre-commit-hooks.yaml)",
    "mpigen-rank-env": "the volume name a blueprint may not use (docs/blueprints.md)",
    "mpigen-<hash of its content>": "the name of a ClusterTrainingRuntime no example writes",
    "DIR/.mpigen-stage-<pid>-*": "the folder a write stages its files in, gone when it ends",
}
COMPANION = re.compile(r"(?<![\w.#/-])mpigen-(?:[a-z0-9*-]|<[a-z ]+>)*(?:[a-z0-9*]|<[a-z ]+>)(?![\w.]*\.\w)")
SUFFIX = re.compile(r"`(-[a-z][a-z0-9-]+)`")
SPEAKS_OF_COMPANIONS = re.compile(r"\bKustomizations?\b|\bApplications?\b")
PATH = re.compile(r"(?<![\w./<>*-])(?:\./)?[\w<>.*-]+(?:/[\w<>.*-]*)+")
QUOTED = re.compile(r"`([^`\s]+)`")
FOLDER_LINE = re.compile(r"kustomize root|Kustomization")
# Where a quoted path with placeholders starts when it is a path of the output: an output folder
# (`DIR/...`, `<output>/...`) or a folder of it.
LAYOUT_START = re.compile(r"(?:DIR|<(?:output|overlay|ns|namespace)>)/")
GOLDEN_LINK = re.compile(r"\(((?:\.\./)?golden/[^)#\s]+)\)")
WORD = re.compile(r"[\w<>.*-]+")
HEADING = re.compile(r"^(#{1,6}) (.*)$")
FENCE = re.compile(r"^```")
STRUCK = re.compile(r"~~.+?~~")


@dataclass(frozen=True)
class Claim:
    """One name a doc says a render produces, where it says it."""

    doc: str       # relative to the repository: docs/gitops.md
    line: int
    text: str      # as written
    form: str      # "companion", "suffix", "path" or "object"
    section: str   # the headings it is under, outermost first, joined by " > " ("" for a YAML file)
    golden: tuple[str, ...] = ()  # for an object: the golden files the doc quotes it from

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass(frozen=True)
class Render:
    """What one render wrote, as the docs name it: the names of its Flux Kustomizations and
    Argo CD Applications, the paths of its files and folders (relative to the repository;
    a folder also with its trailing /), the names of its objects, and the values its
    placeholders stand for."""

    kustomizations: frozenset[str]
    applications: frozenset[str]
    paths: frozenset[str]
    objects: frozenset[str]
    overlays: frozenset[str]
    namespaces: frozenset[str]
    jobs: frozenset[str]
    kinds: frozenset[str]
    outputs: frozenset[str]   # the output folder (DIR, <output>)
    folders: frozenset[str]   # the output folder and the companion folders

    @property
    def companions(self) -> frozenset[str]:
        return self.kustomizations | self.applications


def _alternatives(values: frozenset[str]) -> str:
    values = sorted(values, key=lambda v: (-len(v), v))
    return "(?:" + "|".join(re.escape(v) for v in values) + ")" if values else "(?!)"


# Every target's Flux steps (mpigen.render.target.FluxSteps): what `<step>` stands for.
STEPS = frozenset(step for target in TARGETS.values() if target.flux is not None for step in target.flux.steps)


def placeholders(render: Render) -> dict[str, str]:
    """Placeholder -> the pattern of what it stands for in `render`."""
    return {
        "overlay": _alternatives(render.overlays), "env": _alternatives(render.overlays),
        "ns": _alternatives(render.namespaces), "namespace": _alternatives(render.namespaces),
        "job": _alternatives(render.jobs), "trainjob": _alternatives(render.jobs),
        "name": _alternatives(render.objects | render.jobs), "kind": _alternatives(render.kinds),
        "output": _alternatives(render.outputs), "run": "[0-9a-f]{6}", "hash": "[0-9a-f]+",
        "hash of its content": "[0-9a-f]+", "readable": "[a-z0-9]+(?:-[a-z0-9]+)*", "pid": "[0-9]+",
        "step": _alternatives(STEPS), "destination": "[a-z0-9]+(?:-[a-z0-9]+)*",
        "target": _alternatives(set(TARGETS)),
    }


def pattern(text: str, render: Render) -> re.Pattern[str]:
    """The regular expression of a name or path as a doc writes it, its placeholders bound to
    `render`; KeyError names an unknown placeholder."""
    bound = placeholders(render)
    parts = []
    for piece in re.split(r"(<[^>]+>|\.\.\.|\*)", text):
        if piece.startswith("<"):
            parts.append(bound[piece[1:-1]])
        elif piece in ("...", "*"):
            parts.append(".+")
        else:
            parts.append(re.escape(piece))
    return re.compile("".join(parts))


def names(text: str, form: str, render: Render, name: str) -> bool:
    """Whether a Kustomization or Application named `name` is what `text` names (`form`:
    "companion", the whole name; "suffix", its end)."""
    regex = pattern(text, render).pattern
    return bool(re.fullmatch(regex if form == "companion" else f".+{regex}", name))


def produced(claim: Claim, render: Render) -> bool:
    """Whether `render` wrote what `claim` names."""
    if claim.form in ("companion", "suffix"):
        return any(names(claim.text, claim.form, render, name) for name in render.companions)
    if claim.form == "object":
        return any(pattern(claim.text, render).fullmatch(name) for name in render.objects)
    path = re.sub(r"^DIR/", "<output>/", claim.text.removeprefix("./").rstrip("/"))
    regex = pattern(path, render).pattern
    if not any(path == folder or path.startswith(folder + "/") for folder in render.folders | {"<output>"}):
        regex = f"(?:.+/)?{regex}"  # a layout pattern, relative to an output folder
    return any(re.fullmatch(regex, written.rstrip("/")) for written in render.paths)


def claims(path: Path, root: Path, folders: set[str], jobs: set[str]) -> list[Claim]:
    """Every name the doc at `path` says a render produces: the forms of the module's docstring,
    `folders` the first folders of the paths a render writes (rendered, clusters/flux, golden/overlays),
    `jobs` the names of the example jobs whose objects the docs quote."""
    doc = path.relative_to(root).as_posix()
    found = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line, section, in_block, golden in _lines(path):
        line = STRUCK.sub(lambda struck: " " * len(struck.group()), line)
        for match in COMPANION.finditer(line):
            if not _in_link_target(line, match.start()):
                found.append(Claim(doc, number, match.group(), "companion", section))
        if SPEAKS_OF_COMPANIONS.search(line) or number > 1 and SPEAKS_OF_COMPANIONS.search(lines[number - 2]):
            found += [Claim(doc, number, m.group(1), "suffix", section) for m in SUFFIX.finditer(line)]
        found += [Claim(doc, number, text, "path", section) for text in _paths(line, folders)]
        if golden:
            words = WORD.findall(line) if in_block else QUOTED.findall(line)
            found += [Claim(doc, number, word, "object", section, golden) for word in words
                      if any(word == job or word.startswith(job + "-") for job in jobs)]
    return [claim for claim in found if claim.text not in NOT_RENDERED]


def _in_link_target(line: str, start: int) -> bool:
    opened = line.rfind("](", 0, start)
    return opened != -1 and line.find(")", opened) > start


def _paths(line: str, folders: set[str]) -> Iterator[str]:
    """The paths of a line that name what a render writes."""
    quoted = set(QUOTED.findall(line))
    for match in PATH.finditer(line):
        text = match.group().rstrip(".,:")
        if _in_link_target(line, match.start()):
            continue
        bare = text.removeprefix("./")
        if any(bare == folder or bare.startswith(folder + "/") for folder in folders) or (
                text in quoted and LAYOUT_START.match(text)):
            yield text
    for text in quoted:
        if re.fullmatch(r"[\w-]+/", text) and FOLDER_LINE.search(line):
            yield text
        elif re.fullmatch(r"[\w<>-]+\.yaml", text) and "<" in text and "/" not in text:
            yield text


def _lines(path: Path) -> Iterator[tuple[int, str, str, bool, tuple[str, ...]]]:
    """(number, line, section, inside a fenced block, golden files) of each line but headings and
    fences: the golden files are those the line links, or in a block those the paragraph before
    it links. A YAML file is one section, "", of comments and values."""
    headings: dict[int, str] = {}
    in_block, golden, paragraph, blank = False, (), (), True
    markdown = path.suffix == ".md"
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if markdown and FENCE.match(line):
            in_block = not in_block
            golden = paragraph if in_block else ()
            continue
        heading = HEADING.match(line) if markdown and not in_block else None
        if heading:
            level = len(heading.group(1))
            headings = {depth: text for depth, text in headings.items() if depth < level} | {level: line.strip()}
            continue
        if not in_block:
            linked = tuple(link.removeprefix("../") for link in GOLDEN_LINK.findall(line))
            if line.strip():
                paragraph = linked if blank else paragraph + linked
            blank = not line.strip()
            golden = linked
        yield number, line, " > ".join(headings[depth] for depth in sorted(headings)), in_block, golden


def written(repository: Path, outputs: set[str], companions: set[str], overlays: set[str], jobs: set[str]) -> Render:
    """What a render in `repository` wrote into its output folders and its companion folders
    (all relative to it), for `overlays` (its environments) and `jobs` (the jobs it rendered)."""
    paths, objects, namespaces, kinds = set(), set(), set(), set()
    kustomizations, applications = set(), set()
    for folder in outputs | companions:
        for file in sorted((repository / folder).rglob("*")):
            relative = file.relative_to(repository)
            paths.add(relative.as_posix() + ("/" if file.is_dir() else ""))
            paths.update(parent.as_posix() + "/" for parent in relative.parents if parent != Path("."))
            if file.suffix != ".yaml" or file.name == "kustomization.yaml":
                continue
            for obj in yaml.safe_load_all(file.read_text(encoding="utf-8")):
                name = obj["metadata"]["name"]
                if folder in companions:
                    (applications if obj["kind"] == "Application" else kustomizations).add(name)
                    continue
                objects.add(name)
                namespaces.add(obj["metadata"].get("namespace") or CLUSTER_FOLDER)
                kinds.add(obj["kind"].lower())
    return Render(frozenset(kustomizations), frozenset(applications), frozenset(paths), frozenset(objects),
                  frozenset(overlays), frozenset(namespaces), frozenset(jobs), frozenset(kinds),
                  frozenset(outputs), frozenset(outputs | companions))


@dataclass(frozen=True)
class Scope:
    """What a section of a doc shows: the configurations whose renders the names in it are
    checked against; `complete`, when the section says what Kustomizations and Applications
    they get: then each one their renders write must be named in it (one job may stand for
    every job); `elsewhere`, for a section whose paths are another command's output, why."""

    configurations: tuple[str, ...] = ()
    complete: bool = False
    elsewhere: str = ""


def scope_of(claim: Claim, scopes: dict[tuple[str, str], Scope]) -> Scope | None:
    """The scope of the most specific heading of `scopes` the claim is under, in its doc ("": the whole doc)."""
    keys = [(doc, heading) for doc, heading in scopes if doc == claim.doc and heading in claim.section]
    return scopes[max(keys, key=lambda key: len(key[1]))] if keys else None


def problems(found: list[Claim], scopes: dict[tuple[str, str], Scope], renders: dict[str, Render],
             golden: Callable[[str], Render]) -> list[str]:
    """What each claim names that its renders do not write, at its line: an object quoted from a
    golden file against the render of that golden case (`golden`), the others against the
    renders of their section's configurations."""
    reported = []
    for claim in found:
        scope = scope_of(claim, scopes)
        if claim.form == "object":
            checked = {path: golden(path) for path in claim.golden}
        elif scope is None:
            reported.append(f"{claim.where}: `{claim.text}` names what a render writes, but no configuration is "
                            f"bound to its section ({claim.section or claim.doc}): bind one in SCOPES")
            continue
        else:
            checked = {name: renders[name] for name in scope.configurations}
        try:
            if checked and not any(produced(claim, render) for render in checked.values()):
                reported.append(f"{claim.where}: `{claim.text}` is not what the render of {' or '.join(checked)} "
                                f"writes; it writes {_nearest(claim, checked.values())}")
        except KeyError as unknown:
            reported.append(f"{claim.where}: `{claim.text}`: unknown placeholder <{unknown.args[0]}>; bind it in "
                            f"placeholders() of tests/support/docs_names.py")
    return reported


def unnamed(root: Path, found: list[Claim], scopes: dict[tuple[str, str], Scope],
            renders: dict[str, Render]) -> list[str]:
    """For each complete scope: the Kustomizations and Applications its renders write that no
    claim of the section names, at the section's first line about Flux (Argo CD)."""
    reported = []
    for (doc, heading), scope in scopes.items():
        if not scope.complete:
            continue
        named = [claim for claim in found if claim.doc == doc and heading in claim.section
                 and claim.form in ("companion", "suffix")]
        for configuration in scope.configurations:
            render = renders[configuration]
            for kind, profile, companions in (("Flux Kustomization", "flux", render.kustomizations),
                                              ("Argo CD Application", "argocd", render.applications)):
                for name in sorted(companions):
                    if not any(names(_any_job(claim.text, render), claim.form, render, name) for claim in named):
                        line = _first_line(root / doc, heading, profile)
                        reported.append(f"{doc}:{line}: the render of {configuration} writes the {kind} `{name}`, "
                                        f"which this section ({heading}) does not name")
    return reported


def _any_job(text: str, render: Render) -> str:
    """`text` with the name of any job of the render as `<job>`: one job stands for every job."""
    for job in sorted(render.jobs, key=len, reverse=True):
        text = re.sub(rf"(?<=-){re.escape(job)}(?=-|$)", "<job>", text)
    return text


def _first_line(path: Path, heading: str, profile: str) -> int:
    """The line of the section that speaks of the profile's controller: its bullet, else the first that names it."""
    controller = {"flux": "Flux", "argocd": "Argo CD"}[profile]
    lines = [(number, line) for number, line, section, _, _ in _lines(path) if heading in section]
    for mark in (f"**{controller}**", f"--gitops {profile}", controller):
        found = [number for number, line in lines if mark in line]
        if found:
            return found[0]
    return lines[0][0] if lines else 1


def _nearest(claim: Claim, renders: Iterable[Render]) -> str:
    """What the renders write that is nearest to what the claim names."""
    if claim.form in ("companion", "suffix"):
        written = sorted(set().union(*(render.companions for render in renders)))
    elif claim.form == "object":
        written = sorted(set().union(*(render.objects for render in renders)))
    else:
        written = sorted(set().union(*(render.paths for render in renders)))
    near = difflib.get_close_matches(claim.text.removeprefix("./"), written, n=4, cutoff=0.5) or written[:4]
    return ", ".join(near) or "nothing of the kind"
