#!/usr/bin/env bash
# Runs every test of the workspace. The interop tests drive the example server with the official
# TypeScript and Python clients; scripts/install-interop.sh installs them (once) into .tools/. The
# tests of the Redis stores start their own redis-server; scripts/install-redis.sh installs it
# (Debian's package) when the machine has none, and scripts/install-haproxy.sh HAProxy for the tests
# of examples/deploy/run.sh. The telemetry tests export their spans to Arize Phoenix and read them
# back from it; scripts/install-phoenix.sh installs it (once) into .tools/phoenix. The MCP Apps test
# renders the notes board in headless Chromium through a web host (tests/browser);
# scripts/install-browser.sh installs Chromium (Debian's package) and builds the host. The board's
# page is committed built; scripts/build-apps.sh --check fails when its sources would build another.
# The serverless examples run in their platforms' local runtimes (workerd, cargo lambda watch),
# built by scripts/build-serverless.sh (which installs the tools once, and builds again only on a
# change). Without arguments, that build runs beside the other tests (at the lowest priority: they
# mostly wait on the processes they start), and the serverless tests (`serverless::`) after it;
# with arguments (passed to `cargo test --workspace`), the build comes first.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-interop.sh
scripts/install-phoenix.sh
scripts/install-redis.sh >/dev/null
scripts/install-haproxy.sh >/dev/null
scripts/install-browser.sh >/dev/null
scripts/build-apps.sh --check
if [ $# -gt 0 ]; then
  scripts/build-serverless.sh
  exec cargo test --workspace "$@"
fi
mkdir -p target
nice -n 19 scripts/build-serverless.sh >target/build-serverless-tests.log 2>&1 &
build=$!
status=0
cargo test --workspace -- --skip serverless:: || status=$?
if ! wait "$build"; then
  cat target/build-serverless-tests.log >&2
  echo "test: scripts/build-serverless.sh failed (its output is above)" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
cargo test --workspace --test all -- serverless::
