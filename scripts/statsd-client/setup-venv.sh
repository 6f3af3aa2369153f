#!/bin/sh
# Dev-only: a Python venv with the PyPI `statsd` client (a second StatsD
# client, from another ecosystem, for test/statsd/python-client.test.js),
# under ${TMPDIR:-/tmp}. Idempotent: does nothing when the venv is ready.
# Prints the venv's path.
set -eu
VENV="${STATSD_CLIENT_VENV:-${TMPDIR:-/tmp}/statbucket-statsd-venv}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import statsd' 2>/dev/null; then
  echo "$VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check 'statsd==4.0.1' >&2
echo "$VENV"
