#!/bin/sh
# Dev-only Python venvs of the test oracles and clients (never in the image).
# Usage: dev-venv.sh DIR IMPORTS PACKAGE...
# Builds DIR with the PyPI packages unless `python -c "import IMPORTS"`
# already works there; idempotent. Prints DIR.
set -eu
VENV="$1"
IMPORTS="$2"
shift 2
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import $IMPORTS" 2>/dev/null; then
  echo "$VENV"
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
echo "$VENV"
