#!/usr/bin/env bash
# Adds the Rust target wasm32-unknown-unknown (Cloudflare Workers') with rustup, once.
set -euo pipefail
target=wasm32-unknown-unknown
if ! rustup target list --installed | grep -qx "$target"; then
  echo "install-wasm-target: adding the target $target" >&2
  rustup target add "$target" >&2
fi
