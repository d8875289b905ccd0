#!/usr/bin/env bash
# mcp-runtime for WebAssembly (wasm32-unknown-unknown, as Cloudflare Workers run it): the crate with
# the HTTP transport as a function (`http-handler`) and the token verifiers (`auth`), without what
# the target lacks (the listener, stdio, processes, tokio's multi-threaded runtime and sockets).
# Adds the target with rustup on first use (scripts/install-wasm-target.sh); lints with -D warnings
# as CI lints the workspace. scripts/build-serverless.sh builds a whole worker with it, macros
# and all.
set -euo pipefail
cd "$(dirname "$0")/.."
target=wasm32-unknown-unknown
scripts/install-wasm-target.sh
cargo clippy --quiet -p mcp-runtime --target "$target" --no-default-features \
  --features http-handler,auth -- -D warnings
echo "wasm: mcp-runtime builds for $target" >&2
