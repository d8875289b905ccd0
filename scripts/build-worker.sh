#!/usr/bin/env bash
# Builds the Cloudflare Workers example (examples/cloudflare-worker) for WebAssembly with
# worker-build, as `npx wrangler deploy` does, into examples/cloudflare-worker/build/, for the tests
# that run it in workerd (tests/tests/all/workers.rs). It installs what that takes, once, from the
# package registries:
# - the Rust target wasm32-unknown-unknown (scripts/install-wasm-target.sh);
# - worker-build and wasm-bindgen-cli from crates.io, into .tools/workers/ (git-ignored); the
#   version of wasm-bindgen-cli must equal that of the wasm-bindgen in the example's Cargo.lock.
#   They are built without optimizations (`cargo install --debug`): ~4 minutes on two cores
#   instead of ~20, and either runs in seconds;
# - workerd (Cloudflare's runtime, which the tests run the worker in), esbuild and binaryen's
#   wasm-opt from npm, at the versions of the example's package-lock.json, into
#   examples/cloudflare-worker/node_modules/.
# worker-build would download wasm-bindgen, wasm-opt and esbuild from GitHub; it is given these
# (WASM_BINDGEN_BIN, WASM_OPT_BIN, ESBUILD_BIN) instead, so that nothing comes from elsewhere.
# It lints the worker (clippy, -D warnings) before each build, and builds again only when the
# worker's sources or the SDK's changed since the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
example=examples/cloudflare-worker
tools=.tools/workers
WORKER_BUILD_VERSION=0.8.7

scripts/install-wasm-target.sh

wasm_bindgen=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' "$example/Cargo.lock")
install_crate() { # crate version binary
  if ! "$tools/bin/$3" --version 2>/dev/null | grep -qw -- "$2"; then
    echo "build-worker: installing $1 $2 into $tools/ (a debug build, a few minutes)" >&2
    CARGO_TARGET_DIR="$tools/target" cargo install --quiet --debug --force --root "$tools" "$1" --version "$2" >&2
  fi
}
install_crate worker-build "$WORKER_BUILD_VERSION" worker-build
install_crate wasm-bindgen-cli "$wasm_bindgen" wasm-bindgen
rm -rf "$tools/target"

node_bin=$(scripts/install-node.sh)
stamp=$(sha256sum "$example/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$example/node_modules/.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "build-worker: installing workerd, esbuild and wasm-opt (npm) into $example/node_modules/" >&2
  PATH="$node_bin:$PATH" npm ci --silent --no-audit --no-fund --prefix "$example"
  echo "$stamp" > "$example/node_modules/.stamp"
fi

output="$example/build/index_bg.wasm"
if [ -f "$output" ] && [ -z "$(find "$example/src" "$example/Cargo.toml" "$example/Cargo.lock" \
    mcp-core mcp-macros mcp-runtime -newer "$output" -print -quit)" ]; then
  exit 0
fi
echo "build-worker: linting and building $example (clippy, then worker-build --release)" >&2
bin="$root/$example/node_modules/.bin"
(
  cd "$example"
  cargo clippy --quiet --target wasm32-unknown-unknown -- -D warnings
  PATH="$node_bin:$PATH" WASM_BINDGEN_BIN="$root/$tools/bin/wasm-bindgen" \
    WASM_OPT_BIN="$bin/wasm-opt" ESBUILD_BIN="$bin/esbuild" \
    "$root/$tools/bin/worker-build" --release >&2
)
