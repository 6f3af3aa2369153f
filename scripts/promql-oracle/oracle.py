"""Reads {"rules": [{"alert", "expr"}], "exposition": "<Prometheus text>"} on
stdin; prints JSON: each rule's expression parsed by promql-parser (its
vector selectors, or the parser's refusal) and the exposition as
prometheus_client's parser reads it (families with their type and samples).
The oracles of test/slos/slo-alert-rules-oracle.test.js."""
import json
import sys

import promql_parser
from prometheus_client.parser import text_string_to_metric_families


def selectors(node):
    """Every VectorSelector under node: (name, matchers as PromQL prints them)"""
    kind = type(node).__name__
    if kind == "VectorSelector":
        return [{"name": node.name, "matchers": str(node.matchers)}]
    found = []
    for child in ("lhs", "rhs", "expr", "vector_selector"):
        if hasattr(node, child) and getattr(node, child) is not None:
            found += selectors(getattr(node, child))
    return found


def main():
    given = json.load(sys.stdin)
    rules = []
    for rule in given["rules"]:
        try:
            rules.append({"alert": rule["alert"], "selectors": selectors(promql_parser.parse(rule["expr"]))})
        except Exception as err:  # the parser's refusal, named
            rules.append({"alert": rule["alert"], "error": str(err)})
    families = [
        {"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
        for f in text_string_to_metric_families(given["exposition"])
    ]
    json.dump({"rules": rules, "families": families}, sys.stdout, allow_nan=True)


main()
