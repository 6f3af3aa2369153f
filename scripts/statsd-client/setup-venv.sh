#!/bin/sh
# Dev-only: a Python venv with the PyPI `statsd` client (a second StatsD
# client, from another ecosystem, for test/statsd/python-client.test.js),
# under ${TMPDIR:-/tmp}. Idempotent. Prints the venv's path.
set -eu
exec "$(dirname "$0")/../dev-venv.sh" "${STATSD_CLIENT_VENV:-${TMPDIR:-/tmp}/statbucket-statsd-venv}" statsd 'statsd==4.0.1'
