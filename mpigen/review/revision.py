"""The two sides of `mpigen diff`, as files: relative path -> text.

- an output folder on disk (OLD_DIR NEW_DIR);
- a fresh render, laid out as `render -o` would write it;
- the output folder as committed at a git revision (--base). That is what the clusters
  run now, whichever mpigen version rendered it, so it is read from Git, not re-rendered.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mpigen.emit.layout import folder_files
from mpigen.errors import NOWHERE, InputError, Mark, error
from mpigen.load.files import YAML_SUFFIXES, display_path, read_text


def folder_texts(root: Path) -> dict[str, str]:
    """Every YAML file below root (hidden files and folders skipped), by relative path."""
    shown = display_path(root)
    if not root.is_dir():
        raise InputError([error(Mark(shown), "no such folder; give two rendered output folders")])
    texts: dict[str, str] = {}
    problems = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(folder, name)
            if name.startswith(".") or not name.endswith(YAML_SUFFIXES) or not path.is_file():
                continue  # only YAML can hold manifests (a README or an image is not compared)
            rel = path.relative_to(root).as_posix()
            try:
                texts[rel] = read_text(path, display_path(path))
            except InputError as exc:
                problems.extend(exc.diagnostics)
    if problems:
        raise InputError(problems)
    return texts


def render_texts(result) -> dict[str, str]:
    """A render (mpigen.pipeline.Result) laid out as `render -o` writes it."""
    return folder_files(result.objects, result.envs)


def _git(*args: str, check: bool = True) -> str | None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError([error(NOWHERE, "git is not installed; compare two folders instead: "
                                           "mpigen diff OLD_DIR NEW_DIR")])
    if done.returncode != 0:
        if check:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError([error(NOWHERE, f"git {args[0]} failed: {message[-1] if message else done.returncode}")])
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def default_base() -> str:
    """The merge base of HEAD with the default branch (origin's HEAD, else main or master)."""
    candidates = []
    origin_head = _git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", check=False)
    if origin_head:
        candidates.append(origin_head.strip())
    candidates += ["origin/main", "origin/master", "main", "master"]
    for branch in candidates:
        if _git("rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False):
            base = _git("merge-base", "HEAD", branch, check=False)
            if base:
                return base.strip()
    raise InputError([error(NOWHERE, "cannot find the default branch (tried origin/HEAD, origin/main, "
                                       "origin/master, main, master); name the base: --base REV")])


def revision_texts(base: str | None, output: Path, scope: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """(label, files) of the output folder as committed at `base` (default: the merge base
    with the default branch), restricted to the output sub-folders this run renders."""
    if _git("rev-parse", "--is-inside-work-tree", check=False) is None:
        raise InputError([error(NOWHERE, "not inside a git repository; compare two folders instead: "
                                           "mpigen diff OLD_DIR NEW_DIR")])
    rev = base if base is not None else default_base()
    commit = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not commit:
        raise InputError([error(NOWHERE, f"unknown git revision {rev!r}; fetch it (in CI: a full clone, e.g. "
                                           "actions/checkout with fetch-depth: 0) or name another with --base")])
    commit = commit.strip()
    label = f"{rev} ({commit[:12]})" if rev != commit else commit[:12]
    prefix = output.as_posix().rstrip("/") + "/"
    listing = _git("ls-tree", "-r", "-z", commit, "--", prefix) or ""
    entries = []
    for record in listing.split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, sha = meta.split()
        rel = path[len(prefix):] if path.startswith(prefix) else path
        if (kind != "blob" or mode == "120000" or not rel.endswith(YAML_SUFFIXES)
                or any(part.startswith(".") for part in rel.split("/"))):
            continue
        if any(rel.startswith(s) for s in scope):
            entries.append((rel, sha))
    return label, _read_blobs(entries, f"{label}:{prefix}")


def _read_blobs(entries: list[tuple[str, str]], shown: str) -> dict[str, str]:
    if not entries:
        return {}
    request = "".join(f"{sha}\n" for _, sha in entries).encode()
    done = subprocess.run(["git", "cat-file", "--batch"], input=request, capture_output=True, check=True)
    data, offset, texts = done.stdout, 0, {}
    problems = []
    for rel, _ in entries:
        header_end = data.index(b"\n", offset)
        size = int(data[offset:header_end].split()[2])
        body = data[header_end + 1:header_end + 1 + size]
        offset = header_end + 1 + size + 1
        try:
            texts[rel] = body.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(error(Mark(shown + rel), "file is not valid UTF-8"))
    if problems:
        raise InputError(problems)
    return texts
