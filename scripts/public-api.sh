#!/usr/bin/env bash
# The public API of the published crates against its snapshot in public-api/, so that the surface
# changes only on purpose:
#   scripts/public-api.sh           fails on any difference, printing it
#   scripts/public-api.sh --update  writes the snapshots anew (commit them with the change)
# and, either way, fails when an item is reachable by two paths (scripts/public-paths.py; the
# rule is at the top of mcp-runtime/src/lib.rs).
#
# `cargo public-api` lists every public item from the crate's rustdoc JSON, which only the nightly
# toolchain writes; mcp-runtime is listed with all its features. Blanket impls (`impl<T, U> Into<U>
# for T`, ...) and auto-trait impls (`Send`, `Unpin`, ...) are left out: they follow from the
# rest, and the auto traits a nightly knows of come and go. cargo-public-api is installed into
# ~/.cargo/bin on first use (unoptimised, `--debug`: it builds sooner, and still reads our rustdoc
# JSON in seconds), at the release that reads the rustdoc JSON of our nightly: each
# release reads one format version (0.52.0, with the locked rustdoc-types 0.57, reads format 57;
# its README has the compatibility matrix). It lists an item under each path that reaches it (the
# prelude's items are listed there in full again), and in signatures names a type by one of its
# shortest paths, which for an item of the prelude may be the prelude's.
set -euo pipefail
cd "$(dirname "$0")/.."

tool_version=0.52.0
json_format=57

update=false
case "${1:-}" in
  --update) update=true ;;
  "") ;;
  *)
    echo "usage: scripts/public-api.sh [--update]" >&2
    exit 2
    ;;
esac

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "public-api: the nightly toolchain is missing (rustup toolchain install nightly); rustdoc JSON needs it" >&2
  exit 1
fi
if [ "$(cargo public-api --version 2>/dev/null)" != "cargo-public-api $tool_version" ]; then
  echo "public-api: installing cargo-public-api $tool_version" >&2
  cargo install --quiet --locked --debug "cargo-public-api@$tool_version"
fi

# The format of the nightly's rustdoc JSON, from an empty crate: another format than the one
# cargo-public-api reads would fail later with a parse error that names neither.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'pub fn probe() {}' >"$probe/lib.rs"
rustdoc +nightly -Z unstable-options --output-format json --crate-type lib --crate-name probe \
  -o "$probe" "$probe/lib.rs"
format=$(grep -o '"format_version":[0-9]*' "$probe/probe.json" | cut -d: -f2)
if [ "$format" != "$json_format" ]; then
  echo "public-api: the nightly toolchain ($(rustc +nightly --version)) writes rustdoc JSON format $format;" \
    "cargo-public-api $tool_version reads format $json_format. Pin the cargo-public-api release that" \
    "reads format $format in this script (its README's compatibility matrix), or install a nightly" \
    "of that format (rustup toolchain install nightly-YYYY-MM-DD, then rustup default or" \
    "'rustup toolchain link')." >&2
  exit 1
fi

target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
mkdir -p "$target/public-api"
failed=0
for crate in mcp-runtime-core mcp-runtime-macros mcp-runtime; do
  features=()
  [ "$crate" = mcp-runtime ] && features=(--all-features)
  listed="$target/public-api/$crate.txt"
  if ! cargo +nightly public-api -p "$crate" "${features[@]}" -ss >"$listed" 2>"$listed.log"; then
    echo "public-api: cargo public-api failed on $crate:" >&2
    cat "$listed.log" >&2
    exit 1
  fi
  snapshot="public-api/$crate.txt"
  if $update; then
    cp "$listed" "$snapshot"
  elif ! diff -u "$snapshot" "$listed" >"$target/public-api/$crate.diff"; then
    echo "public-api: the public API of $crate differs from $snapshot (- snapshot, + now):" >&2
    cat "$target/public-api/$crate.diff" >&2
    failed=1
  fi
  python3 scripts/public-paths.py "$target/doc/${crate//-/_}.json" >"$target/public-api/$crate.paths" || {
    echo "public-api: in $crate, some items are reachable by two or more paths; give each one home:" >&2
    cat "$target/public-api/$crate.paths" >&2
    failed=1
  }
done
if [ "$failed" -ne 0 ] && ! $update; then
  echo "public-api: if the change is on purpose, record it with scripts/public-api.sh --update" \
    "and commit public-api/ with it" >&2
fi
exit "$failed"
