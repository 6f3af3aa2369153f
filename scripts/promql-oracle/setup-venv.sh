#!/bin/sh
# Dev-only: a Python venv with PyPI's promql-parser (Prometheus' PromQL
# grammar, in Rust) and prometheus-client (Prometheus' Python client: its
# text-format parser), the oracles of test/slos/slo-alert-rules-oracle.test.js,
# under ${TMPDIR:-/tmp}. Idempotent. Prints the venv's path.
set -eu
exec "$(dirname "$0")/../dev-venv.sh" "${PROMQL_ORACLE_VENV:-${TMPDIR:-/tmp}/statbucket-promql-venv}" 'promql_parser, prometheus_client' 'promql-parser==0.11.0' 'prometheus-client==0.26.0'
