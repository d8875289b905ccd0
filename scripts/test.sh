#!/usr/bin/env bash
# Runs every test of the workspace. The interop tests drive the example server with the official
# TypeScript and Python clients; scripts/install-interop.sh installs them (once) into .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-interop.sh
cargo test --workspace "$@"
# The load generator of the benchmarks (bench/, a workspace of its own) has unit tests too.
cargo test --manifest-path bench/Cargo.toml -p mcp-bench
