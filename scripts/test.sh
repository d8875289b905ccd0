#!/usr/bin/env bash
# Runs every test of the workspace. The interop tests drive the example server with the official
# TypeScript and Python clients; scripts/install-interop.sh installs them (once) into .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-interop.sh
cargo test --workspace "$@"
