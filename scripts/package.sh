#!/usr/bin/env bash
# The crates as crates.io would serve them, and a user's first hour built from those alone:
#   1. `cargo package` packages every publishable crate (mcp-runtime-core, mcp-runtime-macros,
#      mcp-runtime, mcp-runtime-cli) into target/package/*.crate, as `cargo publish` would upload
#      them (what is not in a package, a path outside a crate or an unlisted file, fails here);
#   2. a directory source (in a temporary folder) holds those packages, unpacked, beside every
#      third-party crate of Cargo.lock (`cargo vendor`); a Cargo configuration replaces crates.io
#      with it, so that nothing below sees the workspace's path dependencies;
#   3. the CLI is installed from its package (`cargo install mcp-runtime-cli`);
#   4. the README's quickstart runs as written, in a new folder: its commands (`cargo new`,
#      `cargo add mcp-runtime`, ...), its `src/main.rs`, then its `mcp inspect` and `mcp call`
#      against the server (the call must print 5); mcp-runtime/README.md, what crates.io shows,
#      must hold the same commands and code;
#   5. `mcp new` (the installed CLI) writes a server crate, which depends on `mcp-runtime` from
#      the registry at the CLI's version, and its tests pass;
#   6. `mcp pack` makes it an MCP Bundle, which the official tool (npm @anthropic-ai/mcpb)
#      unpacks and validates, and whose binary serves; its server.json passes the MCP registry's
#      published schema and names the bundle by its SHA-256.
# Run by .ci/run on a clean checkout; locally, uncommitted changes are packaged too.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
crates=(mcp-runtime-core mcp-runtime-macros mcp-runtime mcp-runtime-cli)
# Outside the checkout: Cargo takes a crate inside the workspace's folder for one of its members.
work=$(mktemp -d "${TMPDIR:-/tmp}/mcp-packaged.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every package of the workspace is one of these or says `publish = false`.
cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
publishable = sorted(p["name"] for p in json.load(sys.stdin)["packages"] if p["publish"] != [])
if publishable != sorted(sys.argv[1:]):
    sys.exit(f"package: the publishable packages are {publishable}, not {sorted(sys.argv[1:])}:"
             " give a package that is no part of the SDK publish = false in its Cargo.toml")
' "${crates[@]}"

echo "package: packaging ${crates[*]}" >&2
packages=()
for crate in "${crates[@]}"; do packages+=(-p "$crate"); done
# Not verified here by building each package in turn: steps 3 to 5 build them, as users would.
cargo package --quiet --allow-dirty --no-verify "${packages[@]}"

echo "package: a directory source of the packages and the third-party crates" >&2
registry=$work/registry
cargo vendor --quiet --versioned-dirs "$registry" >/dev/null
version=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-runtime"))')
for crate in "${crates[@]}"; do
  file=target/package/$crate-$version.crate
  tar -xzf "$file" -C "$registry"
  # A directory source names each package's checksum; `files` may be empty (nothing to verify).
  printf '{"files":{},"package":"%s"}' "$(sha256sum "$file" | cut -d' ' -f1)" \
    >"$registry/$crate-$version/.cargo-checksum.json"
done
# Cargo reads the configuration of the folder it runs in and of every folder above it: every
# project below lives under $work, and sees crates.io only through the packages.
mkdir -p "$work/.cargo"
cat >"$work/.cargo/config.toml" <<EOF
[source.crates-io]
replace-with = "packaged"

[source.packaged]
directory = "$registry"

[net]
offline = true
EOF

echo "package: cargo install mcp-runtime-cli (from its package)" >&2
# `cargo install` reads the configuration of the user, not of the folder: it is named.
# Its build goes to a target folder of its own (kept for the next run): the workspace's holds a
# `mcp` of its own, which the instruction-count gate runs. Unoptimised (`--debug`): the same
# package and code as a user's install, built sooner.
(cd "$work" && CARGO_TARGET_DIR=$root/target/package-install \
  cargo --config "$work/.cargo/config.toml" install --quiet --debug mcp-runtime-cli --root "$work/cli")
export PATH="$work/cli/bin:$PATH"
[ "$(command -v mcp)" = "$work/cli/bin/mcp" ]

# The quickstart's blocks, from README.md and from mcp-runtime/README.md.
quickstart() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
start = text.index("```sh\ncargo new")
blocks = re.findall(r"```(\w+)[^\n]*\n(.*?)```", text[start:], re.S)
setup = blocks[0][1]
main = next(body for lang, body in blocks if lang == "rust")
try_it = [body for lang, body in blocks if lang == "sh"][1:2]
print({"setup": setup, "main": main, "try": try_it[0] if try_it else ""}[sys.argv[2]], end="")
EOF
}
for part in setup main; do
  if [ "$(quickstart README.md $part)" != "$(quickstart mcp-runtime/README.md $part)" ]; then
    echo "package: the quickstart's $part differs between README.md and mcp-runtime/README.md:" >&2
    diff <(quickstart README.md $part) <(quickstart mcp-runtime/README.md $part) >&2 || true
    exit 1
  fi
done

echo "package: the README's quickstart, from the packages" >&2
# The quickstart's project builds into the workspace's target folder, which already holds most
# of its dependencies: the same crates.io packages (source replacement keeps their identity).
export CARGO_TARGET_DIR=$root/target
setup=$(quickstart README.md setup)
(cd "$work" && bash -euo pipefail -c "$setup") 2>"$work/setup.log" || {
  cat "$work/setup.log" >&2
  exit 1
}
quickstart README.md main >"$work/hello-mcp/src/main.rs"
grep -q '^mcp-runtime = "'"$version"'"$' "$work/hello-mcp/Cargo.toml" || {
  echo "package: cargo add mcp-runtime did not add mcp-runtime $version:" >&2
  cat "$work/hello-mcp/Cargo.toml" >&2
  exit 1
}
(cd "$work/hello-mcp" && cargo build --quiet)
try_it=$(quickstart README.md try)
grep -q '^mcp call add a=2 b=3 -- cargo run -q' <<<"$try_it"
answer=$(cd "$work/hello-mcp" && bash -euo pipefail -c "$try_it")
# `mcp inspect` prints the server and its tools; the call, last, prints the sum alone.
if ! grep -q 'add' <<<"$answer" || [ "$(tail -n 1 <<<"$answer")" != 5 ]; then
  echo "package: the quickstart's server did not answer add(2, 3) with 5; it printed:" >&2
  echo "$answer" >&2
  exit 1
fi

echo "package: mcp new, from the packages" >&2
# As the user `ada`, without git's configuration: the crate names ada as its author and
# io.github.ada/my-server as its name in the MCP registry.
(cd "$work" && GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 USER=ada mcp new my-server >/dev/null)
grep -q '^mcp-runtime = "'"$version"'"$' "$work/my-server/Cargo.toml" || {
  echo "package: mcp new did not depend on mcp-runtime $version from crates.io:" >&2
  cat "$work/my-server/Cargo.toml" >&2
  exit 1
}
(cd "$work/my-server" && cargo test --quiet 2>&1 | tail -n 3)

echo "package: mcp pack, and the official tools on what it wrote" >&2
node_bin=$(scripts/install-node.sh)
scripts/install-interop.sh
image=ghcr.io/example/my-server:$version
(cd "$work/my-server" && mcp --json pack --image "$image") >"$work/pack.json" 2>"$work/pack.log" || {
  cat "$work/pack.log" >&2
  exit 1
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/pack.json" "$1"; }
bundle=$(field bundle)
server_json=$(field serverJson)
[ "$(basename "$bundle")" = "my-server-$version-linux-$(uname -m).mcpb" ]
mcpb() { PATH="$node_bin:$PATH" interop/node_modules/.bin/mcpb "$@"; }
mcpb unpack "$bundle" "$work/unpacked" >/dev/null
mcpb validate "$work/unpacked/manifest.json" >"$work/validate.log" 2>&1 || {
  echo "package: the official tool refused the bundle's manifest:" >&2
  cat "$work/validate.log" >&2
  exit 1
}
[ "$(mcp call add a=2 b=3 -- "$work/unpacked/server/my-server")" = 5 ] || {
  echo "package: the bundle's binary did not answer add(2, 3) with 5" >&2
  exit 1
}
.tools/py/bin/python - "$server_json" .tools/schemas/server-2025-12-11.schema.json "$bundle" "$image" <<'EOF'
import hashlib, json, sys
import jsonschema
server, schema = (json.load(open(path)) for path in sys.argv[1:3])
jsonschema.validators.validator_for(schema)(schema).validate(server)
bundle = hashlib.sha256(open(sys.argv[3], "rb").read()).hexdigest()
if server["name"] != "io.github.ada/my-server":
    sys.exit(f"package: server.json names {server['name']}, not io.github.ada/my-server")
listed = [(p["registryType"], p["identifier"].rsplit("/", 1)[-1], p.get("fileSha256")) for p in server["packages"]]
wanted = [("mcpb", sys.argv[3].rsplit("/", 1)[-1], bundle), ("oci", sys.argv[4].rsplit("/", 1)[-1], None)]
if listed != wanted:
    sys.exit(f"package: server.json lists {listed}, not {wanted}")
EOF
echo "package: ${crates[*]} $version package, install, build and pack from the packages alone" >&2
