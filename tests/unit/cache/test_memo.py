"""A run's memo (mpigen.cache.memo): a file's result made once, stored under the key of the
bytes it was made of, and given back by the next run with its texts; the allow-list of
pickled classes lets every class of a real result through, and nothing else."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mpigen.cache.folder import judged
from mpigen.cache.memo import run_memo
from mpigen.pipeline.settings import run_settings
from mpigen.pipeline.results import shape
from mpigen.pipeline.step import file_result, file_results
from mpigen.render.target import Options

SETTINGS = ["render", "the options"]
BLUEPRINT = Path(__file__).parents[3] / "blueprints" / "intel-pi.yaml"  # a blueprint of the golden tests


def cache_of(tmp_path: Path) -> Path:
    return judged(tmp_path / "cache").folder


def test_a_result_is_made_once_and_read_back_whole_with_its_texts(tmp_path):
    (tmp_path / "bp").mkdir()
    source = tmp_path / "bp" / "pi.yaml"
    source.write_bytes(BLUEPRINT.read_bytes())
    file, settings = (source, True), run_settings(Options(target="static"))
    made = []

    def compute(file, read):
        made.append(file)
        return file_result(settings, file, read)

    first = run_memo(cache_of(tmp_path), SETTINGS)
    assert first.misses([file]) == [file]
    computed = first.result(file, compute)
    again = run_memo(cache_of(tmp_path), SETTINGS)
    assert again.misses([file]) == []
    found = again.found(file, None)
    assert made == [file] and found == computed and found.per_env[0][0].objects
    assert again.input(file, found.shape).key == first.input(file, computed.shape).key


def test_other_settings_are_another_key(tmp_path):
    source = tmp_path / "pi.yaml"
    source.write_bytes(BLUEPRINT.read_bytes())
    file, settings = (source, True), run_settings(Options(target="static"))
    first = run_memo(cache_of(tmp_path), SETTINGS)
    first.misses([file])
    first.result(file, lambda file, read: file_result(settings, file, read))
    assert run_memo(cache_of(tmp_path), [*SETTINGS, "another overlay"]).misses([file]) == [file]


def test_a_result_is_shaped_only_where_the_run_has_a_cache(tmp_path):
    source = tmp_path / "pi.yaml"
    source.write_bytes(BLUEPRINT.read_bytes())
    file, settings = (source, True), run_settings(Options(target="static"))
    cached, uncached = run_memo(cache_of(tmp_path), SETTINGS), run_memo(None, SETTINGS)
    with_cache = file_results(cached.misses([file]), settings, cached, None)[0]
    without = file_results(uncached.misses([file]), settings, uncached, None)[0]
    assert with_cache.shape == shape(with_cache) is not None and without.shape is None
    assert replace(without, shape=with_cache.shape) == with_cache  # the same result otherwise
