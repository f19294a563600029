"""The PrometheusRule of the golden environments with monitoring on, valid under the Prometheus
Operator's CRD schema (tests/support/fixtures/prometheusrule-v1.schema.yaml, copied from
prometheus-operator v0.93.0, as its header says): every value of the right type and form, and
no field the schema lacks (the API server would drop it without a word)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from mpigen.formats.patterns import DURATION

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = yaml.safe_load((ROOT / "tests" / "support" / "fixtures" / "prometheusrule-v1.schema.yaml").read_text())
CASES = ("monitored", "monitored-jobset")


def rules(case: str) -> list[dict]:
    docs = yaml.safe_load_all((ROOT / "golden" / f"{case}.yaml").read_text(encoding="utf-8"))
    return [doc for doc in docs if doc and doc["kind"] == "PrometheusRule"]


def undeclared(value, schema: dict, where: str = "") -> list[str]:
    """The fields of `value` the structural schema does not declare (what the API server prunes)."""
    if isinstance(value, dict) and "properties" in schema:
        out = []
        for key, item in value.items():
            if key not in schema["properties"]:
                out.append(f"{where}.{key}")
            else:
                out += undeclared(item, schema["properties"][key], f"{where}.{key}")
        return out
    if isinstance(value, list) and "items" in schema:
        return [p for i, item in enumerate(value) for p in undeclared(item, schema["items"], f"{where}[{i}]")]
    return []


@pytest.mark.parametrize("case", CASES)
def test_the_golden_rule_is_valid_under_the_crd_schema(case):
    (rule,) = rules(case)
    jsonschema.Draft7Validator(SCHEMA).validate(rule)
    assert undeclared(rule, SCHEMA) == []
    assert all("alert" in r and "record" not in r for group in rule["spec"]["groups"] for r in group["rules"])


def test_the_check_finds_what_the_crd_refuses():
    (rule,) = rules(CASES[0])
    rule["spec"]["groups"][0]["rules"][0]["for"] = "1h30m2h"
    rule["spec"]["groups"][0]["rules"][1]["severity"] = "page"
    assert list(jsonschema.Draft7Validator(SCHEMA).iter_errors(rule))
    assert undeclared(rule, SCHEMA) == [".spec.groups[0].rules[1].severity"]


def test_monitoring_takes_the_durations_the_crd_takes():
    pattern = SCHEMA["properties"]["spec"]["properties"]["groups"]["items"]["properties"]["rules"]["items"][
        "properties"]["for"]["pattern"]
    assert DURATION == pattern
