"""The pods as they will run: each value read from the compiled templates, and the line that
set it, whichever of the blueprint's field, the role's pod patch or its container patch did."""

from __future__ import annotations

from mpigen.check.effective import effective_pods, set_by, sharing
from mpigen.compile.blueprint import compile_blueprint
from mpigen.load.parser import parse
from mpigen.render.targets import RESERVED
from mpigen.validate.document import validate_document
from tests.support.blueprints import blueprint_yaml


def _pods(spec: str):
    doc = parse(blueprint_yaml(spec=spec), "job.yaml")[0]
    blueprint, diagnostics = validate_document(doc, RESERVED)
    assert blueprint is not None, diagnostics
    return doc, effective_pods(doc, compile_blueprint(blueprint))


BASE = "image: example.com/train:1\ncommand: [python, train.py]\nworkers: 2\n"


def test_a_field_is_the_origin_of_what_it_writes_into_both_roles():
    doc, pods = _pods(BASE + "security: {runAsUser: 1000, fsGroup: 1000}\n")
    for pod in pods:
        assert (pod.user.value, pod.user.origin) == (1000, ("spec", "security", "runAsUser"))
        assert (pod.fs_group.value, pod.fs_group.where) == (1000, "spec.security.fsGroup")
        assert pod.non_root and set_by(pod.user) == ""
    assert sharing(pods, lambda pod: pod.user) == [(pods.launcher, "the launcher and the workers")]


def test_a_patch_sets_one_role_and_the_containers_setting_wins_over_the_pods():
    doc, pods = _pods(BASE + "podTemplatePatch:\n  worker:\n    pod: {securityContext: {runAsUser: 1000}}\n"
                             "    container: {securityContext: {runAsUser: 2000}}\n")
    assert pods.worker.user.value == 2000
    assert pods.worker.user.where == "spec.podTemplatePatch.worker.container.securityContext.runAsUser"
    assert set_by(pods.worker.user) == " (set by spec.podTemplatePatch.worker.container.securityContext.runAsUser)"
    assert (pods.launcher.user.value, pods.launcher.user.origin, pods.launcher.non_root) == (None, None, False)
    lines = blueprint_yaml(spec=BASE).count("\n") + 4  # the container patch's line
    assert doc.value_mark(pods.worker.user.origin).line == lines


def test_run_as_non_root_without_a_user_is_a_non_root_user_of_the_images():
    _, pods = _pods(BASE + "security: {runAsNonRoot: true}\n")
    assert pods.worker.non_root and pods.worker.identity.where == "spec.security.runAsNonRoot"


def test_the_host_network_of_a_field_reaches_only_the_rank_pods_and_keeps_them_one_per_node():
    _, pods = _pods(BASE + "network: {hostNetwork: true}\n")
    assert (pods.worker.host_network.value, pods.worker.host_network.where) == (True, "spec.network.hostNetwork")
    assert pods.worker.dns_policy.value == "ClusterFirstWithHostNet" and pods.worker.one_per_node
    assert pods.launcher.host_network.value is False and not pods.launcher.rank


def test_the_host_network_of_a_patch_is_the_patchs_and_keeps_nothing_one_per_node():
    _, pods = _pods(BASE + "podTemplatePatch:\n  worker:\n    pod: {hostNetwork: true}\n")
    assert pods.worker.host_network.where == "spec.podTemplatePatch.worker.pod.hostNetwork"
    assert pods.worker.dns_policy.value is None and not pods.worker.one_per_node


def test_ports_are_the_container_patchs_each_at_its_item():
    _, pods = _pods(BASE + "podTemplatePatch:\n  worker:\n    container:\n      ports:\n"
                           "      - {name: metrics, containerPort: 9090}\n      - {containerPort: 2222, protocol: UDP}\n")
    assert [(p.name, p.number, p.protocol, p.origin[-1]) for p in pods.worker.ports] == [
        ("metrics", 9090, "TCP", 0), (None, 2222, "UDP", 1)]
    assert pods.launcher.ports == ()


def test_a_user_of_0_is_stated_by_its_field():
    _, pods = _pods(BASE + "security: {runAsUser: 0}\n")
    assert (pods.worker.user.value, pods.worker.user.where, pods.worker.non_root) == (0, "spec.security.runAsUser", False)
