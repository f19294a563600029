"""A run's settings may ask every job's Watched (`mpigen status`, RunSettings.watched): a job
of an environment that is not monitored has one then, and only then; the objects rendered are
the same bytes either way; a queued job that is `completed` renders nothing and has the
Watched of its run, at state `completed`; an archived job has none; and the cache keys the
two kinds of run apart while a render's key stays what it was."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mpigen.cache.fingerprint import key_settings
from mpigen.pipeline.run import render_paths
from mpigen.pipeline.settings import run_settings
from mpigen.render.target import Options
from tests.support.blueprints import blueprint_yaml

SPEC = "image: example.com/train:1\nworkers: 2\ncommand: [python, train.py]\n"
QUEUED = "scheduling:\n  queue: team-gpus\n"


def folder(tmp_path: Path) -> Path:
    (tmp_path / "blueprints").mkdir()
    jobs = {"running": SPEC, "stopped": SPEC + QUEUED + "state: completed\n", "gone": SPEC + "state: archived\n"}
    for name, spec in jobs.items():
        (tmp_path / "blueprints" / f"{name}.yaml").write_text(blueprint_yaml(name, "namespace: ml\n", spec))
    return tmp_path / "blueprints"


def test_every_job_has_a_watched_only_when_asked(tmp_path):
    paths = [folder(tmp_path)]
    settings = run_settings(Options(target="jobset", gitops="argocd"))
    plain = render_paths(paths, settings)
    asked = render_paths(paths, replace(settings, watched=True))
    assert plain.watched == {"": []}
    watched = {w.job: w for w in asked.watched[""]}
    assert sorted(watched) == ["running", "stopped"]  # an archived job: Git has none
    assert watched["running"].state == "running" and watched["running"].kind == "JobSet"
    assert watched["stopped"].state == "completed" and watched["stopped"].queue == "team-gpus"
    assert watched["stopped"].name.startswith("stopped-")  # the run's name under argocd, as if running
    assert [(o.path, o.text) for o in asked.objects] == [(o.path, o.text) for o in plain.objects]
    assert not any("/jobset-stopped-" in o.path for o in plain.objects)  # it renders nothing


def test_the_cache_keys_a_run_that_asks_apart_and_a_render_as_before():
    options = [Options(target="jobset")]
    render = key_settings([], options, None, True)
    assert key_settings([], options, None, True, watched=False) == render
    assert key_settings([], options, None, True, watched=True) != render
