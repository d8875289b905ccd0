#!/usr/bin/env bash
# The promise `rust-version` makes (Cargo.toml, [workspace.package]): the publishable crates, with
# every feature, build with that toolchain. Installs it with rustup on first use (the minimal
# profile), and builds into target/rust-version, apart from the current toolchain's artefacts.
# Cargo.lock's versions are the ones checked (--locked): a dependency that raised its own
# rust-version above ours shows here, and is held back in Cargo.lock or our rust-version raised.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json, sys; print(next(p["rust_version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-runtime"))')
if ! rustup run "$version" rustc --version >/dev/null 2>&1; then
  echo "rust-version: installing Rust $version" >&2
  rustup toolchain install "$version" --profile minimal --no-self-update >&2
fi
echo "rust-version: building the published crates with $(rustup run "$version" rustc --version)" >&2
CARGO_TARGET_DIR=target/rust-version cargo "+$version" build --quiet --locked --all-features \
  -p mcp-runtime-core -p mcp-runtime-macros -p mcp-runtime -p mcp-runtime-cli
echo "rust-version: the published crates build with Rust $version" >&2
