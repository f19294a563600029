"""The two sides of `mpigen diff`, as files: relative path -> text.

- an output folder on disk (OLD_DIR NEW_DIR);
- a fresh render, laid out as `render -o` would write it;
- the output folder as committed at a git revision (--base, --head). That is what the
  clusters run at that revision, whichever mpigen version rendered it, so it is read from
  Git, not re-rendered. Outside a git repository, in one without commits or at an unknown
  revision, the error says so and how to fix it.
"""

from __future__ import annotations

import contextlib
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
        raise InputError([error(Mark(shown), "no such folder; give two rendered output folders, or two git "
                                             "revisions: mpigen diff --base OLD_REV --head NEW_REV")])
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


NOT_A_REPOSITORY = "not inside a git repository"
FOLDERS_INSTEAD = "compare two folders instead: mpigen diff OLD_DIR NEW_DIR"


def _run_git(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """git ARGS, its output captured; InputError when git is not installed."""
    try:
        return subprocess.run(["git", *args], input=stdin, capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError([error(NOWHERE, f"git is not installed; {FOLDERS_INSTEAD}")])


def _git(*args: str, check: bool = True) -> str | None:
    done = _run_git(*args)
    if done.returncode != 0:
        if check:
            raise InputError([error(NOWHERE, f"git {args[0]} failed: {_git_message(done) or done.returncode}")])
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def _git_message(done: subprocess.CompletedProcess) -> str:
    """git's own message (its first line, which names the problem), without `fatal: `."""
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0].removeprefix("fatal: ") if lines else ""


def require_commits(what: str = "") -> None:
    """InputError unless the working folder is in a git repository git agrees to read, that
    has a commit. `what` names the arguments read as revisions, for the message."""
    done = _run_git("rev-parse", "--is-inside-work-tree")
    if done.returncode != 0:
        message = _git_message(done)
        if not message or "not a git repository" in message:
            prefix = f"{what}: no such folders, and " if what else ""
            raise InputError([error(NOWHERE, f"{prefix}{NOT_A_REPOSITORY}; {FOLDERS_INSTEAD}")])
        raise InputError([error(NOWHERE, f"git cannot read this repository: {message}; fix that (git says how: "
                                           "git rev-parse --is-inside-work-tree), or " + FOLDERS_INSTEAD)])
    if not _git("rev-list", "-n", "1", "--all", check=False):
        raise InputError([error(NOWHERE, "the git repository has no commits yet, so there is no revision to "
                                           "compare with: commit the blueprints and their render first (mpigen "
                                           "render, then git add and git commit), or " + FOLDERS_INSTEAD)])


def default_base(head: str = "HEAD") -> str:
    """The merge base of head with the default branch (origin's HEAD, else main or master)."""
    candidates = []
    origin_head = _git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD", check=False)
    if origin_head:
        candidates.append(origin_head.strip())
    candidates += ["origin/main", "origin/master", "main", "master"]
    for branch in candidates:
        if _git("rev-parse", "--verify", "--quiet", f"{branch}^{{commit}}", check=False):
            base = _git("merge-base", head, branch, check=False)
            if base:
                return base.strip()
    raise InputError([error(NOWHERE, "cannot find the default branch (tried origin/HEAD, origin/main, "
                                       "origin/master, main, master); name the base: --base REV")])


def commit_of(rev: str, flag: str | None) -> tuple[str, str]:
    """(label, commit) of a revision (call require_commits first); `flag` is the option that
    names it (--base, --head), None for a positional argument (which may be a folder too)."""
    commit = _git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not commit:
        what = f"unknown git revision {rev!r}" + (", and no such folder" if flag is None else "")
        another = f"name another with {flag}" if flag else "give two revisions or two rendered output folders"
        raise InputError([error(NOWHERE, f"{what}; fetch it (in CI: a full clone, e.g. actions/checkout with "
                                           f"fetch-depth: 0) or {another}")])
    commit = commit.strip()
    return (f"{rev} ({commit[:12]})" if rev != commit else commit[:12]), commit


def revision_texts(commit: str, label: str, output: Path, scope: tuple[str, ...]) -> dict[str, str]:
    """The files of the output folder as committed at `commit`, restricted to the output
    sub-folders this run renders."""
    prefix = output.as_posix().rstrip("/") + "/"
    entries = [(rel, sha) for rel, sha in tree_blobs(commit, prefix) if any(rel.startswith(s) for s in scope)]
    return _read_blobs(entries, f"{label}:{prefix}")


def tree_blobs(commit: str, prefix: str) -> list[tuple[str, str]]:
    """(path below prefix, blob) of the YAML files at commit under the folder `prefix`
    (relative to the working folder, ending in /), symbolic links and hidden files and
    folders left out."""
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
        entries.append((rel, sha))
    return entries


def blob_texts(commit: str, paths: list[str]) -> dict[str, str]:
    """The texts of these files (relative to the working folder) at commit; a file the commit
    lacks, or that is not UTF-8 text, is left out."""
    paths = [path for path in paths if "\n" not in path]
    texts = {}
    for path, found in zip(paths, _cat_file([f"{commit}:./{path}" for path in paths])):
        if found is not None and found[0] == b"blob":
            with contextlib.suppress(UnicodeDecodeError):
                texts[path] = found[1].decode("utf-8")
    return texts


def _read_blobs(entries: list[tuple[str, str]], shown: str) -> dict[str, str]:
    texts, problems = {}, []
    for (rel, _), (_, body) in zip(entries, _cat_file([sha for _, sha in entries]), strict=True):
        try:
            texts[rel] = body.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(error(Mark(shown + rel), "file is not valid UTF-8"))
    if problems:
        raise InputError(problems)
    return texts


def _cat_file(names: list[str]) -> list[tuple[bytes, bytes] | None]:
    """(type, content) of each object named (`<sha>` or `<commit>:<path>`), read with one
    `git cat-file --batch`; None for a name git reports missing (or ambiguous). InputError
    when git fails."""
    if not names:
        return []
    request = "".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape")
    done = _run_git("cat-file", "--batch", stdin=request)
    if done.returncode != 0:
        raise InputError([error(NOWHERE, f"git cat-file failed: {_git_message(done) or done.returncode}")])
    data, offset, found = done.stdout, 0, []
    for _ in names:
        end = data.find(b"\n", offset)
        if end < 0:
            break
        header = data[offset:end].split()
        if len(header) != 3:  # `<name> missing` (or ambiguous): nothing follows
            found.append(None)
            offset = end + 1
            continue
        size = int(header[2])
        found.append((header[1], data[end + 1:end + 1 + size]))
        offset = end + 1 + size + 1
    return found
