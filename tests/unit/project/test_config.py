"""mpigen.yaml as a run reads it (mpigen.project.config.load_config): none is no settings;
one document of kind Config; a target or GitOps profile mpigen does not have, and companion
folders that would hold each other's kustomization.yaml, refused at their line."""

from __future__ import annotations

import pytest

from mpigen.errors import InputError
from mpigen.project.config import load_config
from mpigen.render.targets import TARGETS
from tests.support.text import pos, write

HEAD = "apiVersion: mpigen.dev/v1alpha1\nkind: Config\n"


@pytest.fixture
def repository(tmp_path, monkeypatch):
    """An empty folder, the working folder of the run."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refusal(text: str) -> list[tuple[int, int, str]]:
    write("mpigen.yaml", text)
    with pytest.raises(InputError) as raised:
        load_config()
    return [(d.mark.line, d.mark.column, d.message) for d in raised.value.diagnostics]


def test_no_file_is_no_settings(repository):
    assert load_config() is None


def test_the_settings_read_back(repository):
    write("mpigen.yaml", HEAD + "blueprints: [jobs]\noverlays: [dev]\noutput: deploy\ngitops: argocd\n")
    config = load_config()
    assert config.path == "mpigen.yaml"
    assert (config.model.blueprints, config.model.overlays, config.model.output, config.model.gitops) == (
        ["jobs"], ["dev"], "deploy", "argocd")


@pytest.mark.parametrize("text", ["apiVersion: mpigen.dev/v1alpha1\nkind: Overlay\n", HEAD + "---\n" + HEAD,
                                  "- a list\n"], ids=["another-kind", "two-documents", "not-a-mapping"])
def test_one_document_of_kind_config(repository, text):
    ((_, _, message),) = refusal(text)
    assert message == "mpigen.yaml holds one document with apiVersion: mpigen.dev/v1alpha1 and kind: Config"


def test_every_target_of_the_table_is_accepted(repository):
    for target in TARGETS:
        write("mpigen.yaml", HEAD + f"target: {target}\n")
        assert load_config().model.target == target


@pytest.mark.parametrize("key, value", [("target", "volcano"), ("gitops", "fleet")])
def test_a_target_or_profile_mpigen_does_not_have_is_refused_at_its_value(repository, key, value):
    text = HEAD + f"{key}: {value}\n"
    problems = refusal(text)
    assert [(line, column) for line, column, _ in problems] == [pos(text, value)]
    assert problems[0][2].startswith(f"{key}: ")


@pytest.mark.parametrize("applications, kustomizations, overlap", [
    ("clusters/argocd", "clusters/flux", False),
    ("clusters", "clusters/flux", True),
    ("clusters/x", "clusters/x/", True),
    ("clusters/x/../flux", "clusters/flux", True),
])
def test_the_argocd_and_flux_folders_must_not_hold_each_other(repository, applications, kustomizations, overlap):
    text = (HEAD + f"argocd: {{repoURL: 'https://git.example.com/ml.git', applications: '{applications}'}}\n"
            f"flux: {{sourceRef: ml, kustomizations: '{kustomizations}'}}\n")
    if not overlap:
        write("mpigen.yaml", text)
        assert load_config() is not None
        return
    ((line, column, message),) = refusal(text)
    assert (line, column) == pos(text, f"'{kustomizations}'")
    assert message.startswith(f"flux.kustomizations: {kustomizations!r} overlaps argocd.applications")
