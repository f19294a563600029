"""mpigen.yaml: the whole repository rendered into one kustomize root per overlay, and the
command line winning over it.

Every test builds a small repository in its own tmp folder (the working folder of the
test) and runs either the pipeline or the real command line in-process; expected values
are derived by hand from the input written here; expected positions are computed from the
YAML text (`pos`), never typed in.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from tests.support.overlays import CONFIG_HEAD, _repository, add_blueprint, at, index_paths, overlay, pod_spec
from tests.support.text import write


# --- 8. mpigen.yaml -----------------------------------------------------------------------------


def test_whole_repository_renders_each_overlay_into_its_own_kustomize_root(cli):
    _repository()
    done = cli("render")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    out = Path("out")
    assert sorted(p.name for p in out.iterdir()) == [".mpigen-index", "dev", "prod"]
    for env, namespace in (("dev", "dev"), ("prod", "team")):
        files = {p.relative_to(out / env).as_posix() for p in (out / env).rglob("*") if p.is_file()}
        kustomization = yaml.safe_load((out / env / "kustomization.yaml").read_text())
        assert kustomization["kind"] == "Kustomization"
        assert sorted(kustomization["resources"]) == sorted(files - {"kustomization.yaml"})
        assert len(kustomization["resources"]) == 12
        assert all(path.startswith(f"{namespace}/") for path in kustomization["resources"])
    dev_workers = yaml.safe_load((out / "dev/dev/statefulset-one-worker.yaml").read_text())
    assert dev_workers["spec"]["replicas"] == 1
    assert index_paths(out) == {p.relative_to(out).as_posix() for p in out.rglob("*")
                                if p.is_file() and p.name != ".mpigen-index"}


def test_command_line_output_and_overlay_win_over_mpigen_yaml(cli):
    _repository()
    done = cli("render", "-o", "elsewhere")
    assert done.returncode == 0, done.stderr
    assert not Path("out").exists()
    assert sorted(p.name for p in Path("elsewhere").iterdir()) == [".mpigen-index", "dev", "prod"]
    streamed = cli("render", "--overlay", "prod", "--stdout")
    assert streamed.returncode == 0, streamed.stderr
    sources = {line for line in streamed.stdout.decode().splitlines() if line.startswith("# Source:")}
    assert sources == {"# Source: blueprints/one.yaml, overlays/prod/overlay.yaml",
                       "# Source: blueprints/two.yaml, overlays/prod/overlay.yaml"}


def _delivery_images(objects) -> set[str]:
    return {pod_spec(o)["initContainers"][0]["image"] for o in objects if o["kind"] == "Job"}


def test_command_line_options_win_over_mpigen_yaml_defaults(cli):
    _repository(extra="target: static\ngitops: none\nkubectlDeliveryImage: registry.example.com/kd:1\n")
    from_config = cli("render", "--stdout")
    assert from_config.returncode == 0, from_config.stderr
    assert _delivery_images(from_config.objects()) == {"registry.example.com/kd:1"}
    flagged = cli("render", "--stdout", "--kubectl-delivery-image", "registry.example.com/kd:2",
                  "--target", "static", "--gitops", "none")
    assert flagged.returncode == 0, flagged.stderr
    assert _delivery_images(flagged.objects()) == {"registry.example.com/kd:2"}
    written = cli("render")
    assert written.returncode == 0
    job = yaml.safe_load(Path("out/prod/team/job-one-launcher.yaml").read_text())
    assert _delivery_images([job]) == {"registry.example.com/kd:1"}


def test_target_and_gitops_flags_win_over_mpigen_yaml(monkeypatch):
    """Precedence is checked on what the options resolution picks, with a second target
    allowed for the test (so that mpigen.yaml and the flag can name different ones)."""
    import mpigen.render.targets
    from mpigen.project.options import Flags, resolve

    table = mpigen.render.targets.TARGETS
    monkeypatch.setattr(mpigen.render.targets, "TARGETS", {**table, "other": replace(table["static"], name="other")})
    _repository(extra="target: other\ngitops: argocd\n")
    options = resolve(Flags(), print).options
    assert (options.target, options.gitops) == ("other", "argocd")
    options = resolve(Flags(target="static", gitops="none"), print).options
    assert (options.target, options.gitops) == ("static", "none")


def test_explicit_paths_use_the_config_options_but_not_its_overlays(cli):
    _repository(extra="kubectlDeliveryImage: registry.example.com/kd:1\n")
    done = cli("render", "blueprints/one.yaml", "--stdout")
    assert done.returncode == 0, done.stderr
    objects = done.objects()
    assert len(objects) == 6
    assert {o["metadata"]["namespace"] for o in objects} == {"team"}
    assert "env" not in objects[0]["metadata"]["labels"]
    assert {line for line in done.stdout.decode().splitlines() if line.startswith("# Source:")} == {
        "# Source: blueprints/one.yaml"}
    assert _delivery_images(objects) == {"registry.example.com/kd:1"}
    with_overlay = cli("render", "blueprints/one.yaml", "--overlay", "dev", "--stdout")
    assert {o["metadata"]["namespace"] for o in with_overlay.objects()} == {"dev"}


@pytest.mark.parametrize("config, needle, sub, message", [
    (CONFIG_HEAD + "blueprints: [blueprints]\nouptut: out\n", "ouptut", None,
     "document: unknown key 'ouptut'; did you mean 'output'?"),
    (CONFIG_HEAD + "output: out\ntarget: helm\n", "target: helm", "helm", "target: 'helm' is not one of static, mpijob, jobset, trainjob"),
    (CONFIG_HEAD + "output: out\ntarget: jobsett\n", "target: jobsett", "jobsett",
     "target: 'jobsett' is not one of static, mpijob, jobset, trainjob; did you mean 'jobset'?"),
    (CONFIG_HEAD + "output: out\ngitops: argo\n", "gitops: argo", "argo",
     "gitops: 'argo' is not one of none, argocd, flux; did you mean 'argocd'?"),
    ("# the repository\napiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n", "apiVersion", None,
     "mpigen.yaml holds one document with apiVersion: mpigen.dev/v1alpha1 and kind: Config"),
], ids=["unknown-key", "bad-target", "mistyped-target", "mistyped-gitops", "wrong-kind"])
def test_invalid_mpigen_yaml_is_an_error_with_position(cli, config, needle, sub, message):
    add_blueprint("job")
    write("mpigen.yaml", config)
    for args in (("render",), ("render", "--stdout"), ("render", "blueprints", "-o", "out")):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == b""
        assert done.lines("error") == [f"{at('mpigen.yaml', config, needle, sub)}: error: {message}"]
    assert not Path("out").exists()


def test_a_mistyped_overlay_of_mpigen_yaml_is_an_error_at_its_line(cli):
    add_blueprint("job")
    overlay("dev", "namespace: dev\n")
    overlay("staging", "namespace: staging\n")
    config = write("mpigen.yaml", CONFIG_HEAD + "output: out\noverlays:\n  - dev\n  - stagin\n")
    for args in (("render",), ("validate",), ("check",)):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == b""
        assert done.lines("error") == [f"{at('mpigen.yaml', config, 'stagin')}: error: no overlay named 'stagin' "
                                       "(overlays/stagin does not exist); the overlays are dev, staging; did you "
                                       "mean 'staging'?"], args
    assert not Path("out").exists()


def test_without_mpigen_yaml_the_output_must_be_given(cli):
    add_blueprint("job")
    done = cli("render")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith("error: ") and "--stdout" in done.stderr
    assert sorted(p.name for p in Path(".").iterdir()) == ["blueprints"]


def test_overlays_whose_files_link_to_one_shared_file_are_each_its_own_environment(cli):
    """Issue 50: `overlays: [eu, us]` whose overlay.yaml files are symbolic links to one shared
    file rendered one environment, named after the links' target folder, and eu and us were
    gone (exit 0). An environment is named by the path the user wrote (docs/overlays.md: the
    folder name is the overlay's name), never by where a link leads."""
    add_blueprint("one", namespace="team")
    overlay("shared", "labels: {region: any}\n", folder="common")
    for name in ("eu", "us"):
        Path("overlays", name).mkdir(parents=True)
        Path("overlays", name, "overlay.yaml").symlink_to(Path("..", "..", "common", "shared", "overlay.yaml"))
    write("mpigen.yaml", CONFIG_HEAD + "blueprints: [blueprints]\noverlays: [eu, us]\noutput: out\n")
    done = cli("render")
    assert done.returncode == 0, done.stderr
    out = Path("out")
    assert sorted(p.name for p in out.iterdir()) == [".mpigen-index", "eu", "us"]
    for env in ("eu", "us"):
        workers = yaml.safe_load((out / env / "team/statefulset-one-worker.yaml").read_text())
        assert workers["metadata"]["labels"]["region"] == "any"
    streamed = cli("render", "--overlay", "us", "--stdout")
    assert streamed.returncode == 0, streamed.stderr
    assert "# Source: blueprints/one.yaml, overlays/us/overlay.yaml" in streamed.stdout.decode()


def test_an_overlay_folder_that_links_to_another_is_named_as_written(cli):
    """A folder that is itself a link (overlays/eu -> shared) is the overlay eu."""
    add_blueprint("one", namespace="team")
    overlay("shared", "labels: {region: any}\n")
    Path("overlays", "eu").symlink_to("shared", target_is_directory=True)
    write("mpigen.yaml", CONFIG_HEAD + "blueprints: [blueprints]\noverlays: [eu, shared]\noutput: out\n")
    done = cli("render")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in Path("out").iterdir()) == [".mpigen-index", "eu", "shared"]


def test_bases_that_link_back_to_an_overlay_being_loaded_are_a_cycle(cli):
    """Cycles are found on the files, links followed: a base reached again through a link ends."""
    add_blueprint("one", namespace="team")
    overlay("a", "bases: [b]\n")
    Path("overlays", "b").mkdir()
    Path("overlays", "b", "overlay.yaml").symlink_to(Path("..", "a", "overlay.yaml"))
    done = cli("render", "--overlay", "a", "--stdout")
    assert done.returncode == 2
    assert "overlay bases form a cycle: a -> b; " in done.stderr, done.stderr  # b is a, through its link
