#!/usr/bin/env bash
# The instruction-count gate (bench/gate.py): builds what it measures in release (the bench
# workspace's `profile`, `bench-server` and the `mcp` load generator), then counts the
# instructions of each case with valgrind's callgrind and compares them with the committed
# baseline, bench/instructions.json. A rise above the tolerance fails, naming the case; accept a
# cost that is meant with `scripts/gate.sh --update` and commit the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-valgrind.sh >/dev/null
scripts/install-redis.sh >/dev/null
cargo build --quiet --release -p examples --bin bench-server -p mcp-runtime-cli --bin mcp
# The profile goes to this workspace's target folder, without the bench workspace's line tables
# (a count needs no names; the code is the same): so it reuses the release build of the
# dependencies just made, which the bench workspace's own folder would build again (in CI, two
# minutes instead of seven). bench/gate.py looks for it there.
CARGO_PROFILE_RELEASE_DEBUG=false cargo build --quiet --release --manifest-path bench/Cargo.toml \
  --target-dir "$PWD/target" -p micro --bin profile
python3 bench/gate.py "$@"
