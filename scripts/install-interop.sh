#!/usr/bin/env bash
# Installs what the interop tests need into .tools/ (git-ignored), once, from the package registries:
# - Node 22 (scripts/install-node.sh), which runs the TypeScript client;
# - the official TypeScript clients at the versions interop/package-lock.json pins: v1
#   (@modelcontextprotocol/sdk, the handshake era) and v2 (@modelcontextprotocol/client, 2026-07-28);
# - the official Python client, mcp, in a virtualenv, at the versions interop/requirements.txt pins
#   (1.x, the handshake era), and in a second one at those of interop/requirements-v2.txt (2.x,
#   which speaks 2026-07-28 first);
# - the official MCP Bundle tool, @anthropic-ai/mcpb (interop/package-lock.json), and the MCP
#   registry's published server.json schemas (interop/requirements-schemas.txt), in
#   .tools/schemas/: they check what `mcp pack` writes.
# Running it again does nothing unless one of those files changed.
set -euo pipefail
cd "$(dirname "$0")/.."

node_bin=$(scripts/install-node.sh)
tools=.tools
stamp_file=$tools/interop.stamp
stamp=$( (cat interop/package-lock.json interop/requirements.txt interop/requirements-v2.txt interop/requirements-schemas.txt) | sha256sum | cut -d' ' -f1)

if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  exit 0
fi

echo "install-interop: installing the TypeScript and Python MCP clients" >&2
mkdir -p "$tools"

PATH="$node_bin:$PATH" npm ci --silent --prefix interop

python3 -m venv "$tools/py"
"$tools/py/bin/pip" install --quiet --disable-pip-version-check -r interop/requirements.txt
"$tools/py/bin/python" -c 'import mcp'
python3 -m venv "$tools/py2"
"$tools/py2/bin/pip" install --quiet --disable-pip-version-check -r interop/requirements-v2.txt
"$tools/py2/bin/python" -c 'import mcp, mcp_types'
"$tools/py/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
  --require-hashes -r interop/requirements-schemas.txt -d "$tools/wheels"
mkdir -p "$tools/schemas"
"$tools/py/bin/python" - "$tools/wheels" "$tools/schemas" <<'EOF'
import pathlib, sys, zipfile
wheels, schemas = map(pathlib.Path, sys.argv[1:])
(wheel,) = wheels.glob("skillsaw-*.whl")
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        parts = name.split("/")
        if parts[1:3] == ["schemas", "mcp_registry"] and parts[-1] == "server.schema.json":
            version = parts[3].removeprefix("v").replace("_", "-")
            (schemas / f"server-{version}.schema.json").write_bytes(archive.read(name))
EOF


echo "$stamp" > "$stamp_file"
