#!/bin/sh
# Dev-only: the graphite-web oracle's Python venv (graphite-web + whisper from
# PyPI), under ${TMPDIR:-/tmp}. Idempotent. Prints the venv's path.
set -eu
exec "$(dirname "$0")/../dev-venv.sh" "${GRAPHITE_ORACLE_VENV:-${TMPDIR:-/tmp}/statbucket-graphite-venv}" 'graphite, whisper, django' \
  'graphite-web==1.1.10' 'whisper==1.1.10'
