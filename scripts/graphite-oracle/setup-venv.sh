#!/bin/sh
# Dev-only: the graphite-web oracle's Python venv (graphite-web + whisper from
# PyPI), under ${TMPDIR:-/tmp}. Idempotent: does nothing when the venv is ready.
set -eu
VENV="${GRAPHITE_ORACLE_VENV:-${TMPDIR:-/tmp}/statbucket-graphite-venv}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import graphite, whisper, django' 2>/dev/null; then
  echo "$VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check \
  'graphite-web==1.1.10' 'whisper==1.1.10' >&2
echo "$VENV"
