#!/usr/bin/env bash
# Builds the guide (docs/, an mdBook) into docs/book/. mdBook is installed into .tools/mdbook
# (git-ignored) from crates.io on first use, at the version pinned here, without its `serve` and
# `watch` features, unoptimised (`--debug`: it builds sooner, and still renders the guide in
# seconds). The guide's Rust blocks are compiled and run elsewhere: they are documentation
# tests of mcp-runtime (`cargo test --doc -p mcp-runtime`, part of scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.5.4
mdbook=.tools/mdbook/bin/mdbook
if [ ! -x "$mdbook" ] || [ "$("$mdbook" --version)" != "mdbook v$version" ]; then
  echo "docs: installing mdBook $version into .tools/mdbook" >&2
  cargo install --quiet --locked --debug --version "$version" --no-default-features --features search \
    --root .tools/mdbook mdbook
fi
"$mdbook" build docs
