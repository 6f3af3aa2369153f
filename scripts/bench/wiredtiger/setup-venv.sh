#!/bin/sh
# Dev-only: the Python venv of the WiredTiger storage bench (bench-wiredtiger.js,
# measure.py), under ${TMPDIR:-/tmp}. WiredTiger 11.3.1 built from its PyPI
# source tarball with the snappy and zstd compressors built in (the two
# MongoDB uses), plus pymongo's bson. Idempotent: an existing venv that opens
# snappy and zstd tables is reused. Installs Debian's libsnappy-dev and
# libzstd-dev when missing (apt-get, as root). Prints the venv's path; on
# failure one line on stderr (the build log's path).
set -eu
VENV="${WIREDTIGER_VENV:-${TMPDIR:-/tmp}/statbucket-wiredtiger-venv}"
HERE=$(cd "$(dirname "$0")" && pwd)
fail() { echo "wiredtiger venv: $*" >&2; exit 1; }

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" "$HERE/measure.py" --self-check >/dev/null 2>&1; then
  echo "$VENV"
  exit 0
fi

command -v python3 >/dev/null || fail "python3 is missing"
command -v cmake >/dev/null || fail "cmake is missing (apt-get install cmake)"
command -v cc >/dev/null || fail "a C compiler is missing (apt-get install gcc)"

missing=""
for pkg in libsnappy-dev libzstd-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" = 0 ] || fail "needs Debian packages$missing (run as root, or apt-get install them)"
  { apt-get install -y -qq $missing || { apt-get update -qq && apt-get install -y -qq $missing; }; } \
    >/dev/null 2>&1 </dev/null || fail "apt-get install$missing failed"
fi
command -v ninja >/dev/null || NEED_NINJA=ninja

WORK=$(mktemp -d "${TMPDIR:-/tmp}/statbucket-wiredtiger-build.XXXXXX")
LOG="$WORK/build.log"
trap 'rm -rf "$WORK/src"' EXIT
{
  rm -rf "$VENV" &&
  python3 -m venv "$VENV" &&
  # swig 4.2.1: 4.3 drops PyInt_AsLong, which WiredTiger's bindings use
  "$VENV/bin/pip" install --disable-pip-version-check 'swig==4.2.1' 'pymongo==4.10.1' ${NEED_NINJA:-} setuptools wheel &&
  "$VENV/bin/pip" download --disable-pip-version-check --no-binary :all: --no-deps -d "$WORK" 'wiredtiger==11.3.1' &&
  mkdir "$WORK/src" && tar xzf "$WORK"/wiredtiger-11.3.1.tar.gz -C "$WORK/src" &&
  cd "$WORK/src/wiredtiger-11.3.1" &&
  # the compressors built into the library, and linked into the module
  # (else the import fails: undefined symbol ZSTD_decompressDCtx)
  sed -i \
    -e "s/-DENABLE_PYTHON=1 /-DENABLE_PYTHON=1 -DHAVE_BUILTIN_EXTENSION_SNAPPY=1 -DHAVE_BUILTIN_EXTENSION_ZSTD=1 /" \
    -e "s/^    library_dirs = lib_paths,$/    library_dirs = lib_paths,\n    libraries = ['snappy', 'zstd'],/" \
    setup.py &&
  grep -q 'HAVE_BUILTIN_EXTENSION_ZSTD' setup.py && grep -q "libraries = \['snappy', 'zstd'\]" setup.py &&
  PATH="$VENV/bin:$PATH" "$VENV/bin/pip" install --disable-pip-version-check --no-build-isolation --no-deps . &&
  "$VENV/bin/python" "$HERE/measure.py" --self-check
} >"$LOG" 2>&1 || fail "build failed (log: $LOG)"
rm -rf "$WORK"
echo "$VENV"
