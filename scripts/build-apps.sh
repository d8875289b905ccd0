#!/usr/bin/env bash
# Builds the MCP Apps pages of the examples: each npm project under examples/apps/ (the notes
# board, examples/apps/board) bundles into one self-contained page in its dist/, which is
# committed, because the examples crate includes it (include_str!) and cargo needs no Node.
# Node 22 comes from scripts/install-node.sh, the packages from each project's package-lock.json.
#
#   scripts/build-apps.sh           rebuild the pages in place (then commit dist/)
#   scripts/build-apps.sh --check   build into a temporary copy and fail if a committed page differs
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: scripts/build-apps.sh [--check]" >&2; exit 2 ;;
esac

node_bin=$(scripts/install-node.sh)
export PATH="$node_bin:$PATH"

build() { # build DIR: installs the locked packages and builds DIR/dist
  (cd "$1" && npm ci --silent --no-audit --no-fund && npm run --silent build)
}

status=0
for app in examples/apps/*/; do
  app=${app%/}
  [ -f "$app/package.json" ] || continue
  if ! $check; then
    echo "build-apps: building $app/dist" >&2
    build "$app"
    continue
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -C "$app" --exclude=./node_modules --exclude=./dist -cf - . | tar -C "$tmp" -xf -
  build "$tmp"
  if diff -r "$tmp/dist" "$app/dist" >/dev/null; then
    echo "build-apps: $app/dist is up to date" >&2
  else
    diff -r -q "$tmp/dist" "$app/dist" >&2 || true
    echo "build-apps: $app/dist differs from what its sources build: run scripts/build-apps.sh and commit $app/dist" >&2
    status=1
  fi
  rm -rf "$tmp"
  trap - EXIT
done
exit $status
