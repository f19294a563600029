"""The pod spec rules judge the template as it will be created: the effective dnsPolicy (the
one spec.network.hostNetwork writes), and only what the blueprint wrote, at its line."""

from __future__ import annotations

from mpigen.check.pod_spec_rules import pod_spec_checks
from mpigen.compile.blueprint import compile_blueprint
from mpigen.load.parser import parse
from mpigen.render.targets import RESERVED
from mpigen.validate.document import validate_document
from tests.support.blueprints import blueprint_yaml

BASE = "image: example.com/train:1\ncommand: [python, train.py]\nworkers: 2\n"


def _problems(spec: str) -> list[str]:
    doc = parse(blueprint_yaml(spec=spec), "job.yaml")[0]
    blueprint, diagnostics = validate_document(doc, RESERVED)
    assert blueprint is not None, diagnostics
    return [d.message for d in pod_spec_checks(doc, compile_blueprint(blueprint))]


def test_a_dns_config_without_nameservers_is_kept_under_host_network_whose_policy_is_not_none():
    # Kubernetes v1.30 validatePodDNSConfig asks for a nameserver under dnsPolicy None only; with
    # hostNetwork the template's dnsPolicy is ClusterFirstWithHostNet.
    searches = "podTemplatePatch: {worker: {pod: {dnsConfig: {searches: [corp.example.com]}}}}\n"
    assert _problems(BASE + "network: {hostNetwork: true}\n" + searches) == []
    none = "podTemplatePatch: {worker: {pod: {dnsPolicy: None, dnsConfig: {searches: [corp.example.com]}}}}\n"
    [problem] = _problems(BASE + none)
    assert problem.startswith("spec.podTemplatePatch.worker.pod.dnsConfig: ") and "at least one DNS nameserver" in problem


def test_mpigen_s_own_anti_affinity_beside_a_placement_affinity_is_not_reported():
    # onePodPerNode appends mpigen's own required term after the user's: only the user's term,
    # at its index, is judged at the blueprint's line.
    affinity = ("placement: {worker: {onePodPerNode: true, affinity: {podAntiAffinity: "
                "{requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {a: b}}, "
                "topologyKey: ''}]}}}}\n")
    [problem] = _problems(BASE + affinity)
    assert problem.startswith("spec.placement.worker.affinity.podAntiAffinity."
                              "requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: ")
