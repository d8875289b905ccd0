#!/usr/bin/env bash
# The conformance gate: runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned by conformance/package-lock.json) against the conformance-server example over Streamable
# HTTP, three times:
#   --suite all                  every server scenario, each on its own wire (2025-11-25 or 2026-07-28)
#   --requirements 2025-11-25    the frozen 2025-11-25 set
#   --requirements 2026-07-28    the frozen 2026-07-28 set
# and then every client scenario against the conformance-client example, one at a time (the
# suite's --suite and --requirements modes run them all in parallel, which times out on a 2-core
# machine): each scenario at every revision it is tagged with from 2025-06-18 on, the extension
# scenarios at their default revision, the auth scenarios once; all of that twice, against a debug
# and a release build of the client, whose timings differ (a race shows in one and not the other).
# The two builds' runs go side by side, beside the server runs: a scenario mostly waits, on its
# client's start and on the suite's timers, and each scenario listens on a port of its own.
# Each run is compared with its baseline of expected failures (conformance/baseline-*.yml, every
# entry with its reason): it fails on a scenario that fails and is not listed, and on a listed
# scenario that passes. Prints `N passed, M failed` per run; exits non-zero when any run fails.
# Results (checks.json per scenario) go to target/conformance/.
set -euo pipefail
cd "$(dirname "$0")/.."

node_bin=$(scripts/install-node.sh)
export PATH="$node_bin:$PATH"
stamp=.tools/conformance.stamp
if [ ! -x conformance/node_modules/.bin/conformance ] || ! cmp -s conformance/package-lock.json "$stamp"; then
  echo "conformance: installing the suite" >&2
  npm ci --silent --prefix conformance
  cp conformance/package-lock.json "$stamp"
fi

cargo build --quiet -p examples --bin conformance-server --bin conformance-client
cargo build --quiet --release -p examples --bin conformance-client
results=target/conformance
rm -rf "$results"
mkdir -p "$results"

# The client scenarios: one run of every scenario for each build, the two builds side by side.
# Each writes its outcome to $results/client-PROFILE.{log,out,counts}.
run_client() {
  local scenario=$1
  shift
  local code=0 out
  out=$(conformance/node_modules/.bin/conformance client --command "target/$profile/conformance-client" \
    --scenario "$scenario" "$@" --expected-failures conformance/baseline-client.yml \
    -o "$results/client-$profile" 2>&1) || code=$?
  printf '%s\n' "$out" >>"$results/client-$profile.log"
  if [ "$code" -ne 0 ]; then
    echo "conformance client ($profile) $scenario $*: NOT as the baseline expects:"
    printf '%s\n' "$out" | tail -30
    failed=$((failed + 1))
  elif printf '%s\n' "$out" | grep -q 'OVERALL: PASSED'; then
    passed=$((passed + 1))
  else
    expected=$((expected + 1))
  fi
}
client_runs() {
  local profile=$1 passed=0 failed=0 expected=0
  while read -r scenario tags; do
    case "$scenario" in
      auth/*) run_client "$scenario" ;;
      *)
        for version in ${tags//,/ }; do
          case "$version" in
            extension) run_client "$scenario" ;;
            2025-03-26 | 2024-11-05) ;;
            *) run_client "$scenario" --spec-version "$version" ;;
          esac
        done
        ;;
    esac
  done <<<"$scenarios"
  echo "$passed $expected $failed" >"$results/client-$profile.counts"
}
scenarios=$(conformance/node_modules/.bin/conformance list --client |
  sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p')
# Started now, beside the server runs below.
client_lanes=()
for profile in debug release; do
  client_runs "$profile" >"$results/client-$profile.out" &
  client_lanes+=($!)
done

server_log=$results/server.log
target/debug/conformance-server http 127.0.0.1:0 2>"$server_log" &
server=$!
trap 'kill "$server" "${client_lanes[@]}" 2>/dev/null || true' EXIT
url=
for _ in $(seq 100); do
  url=$(sed -n 's/^MCP endpoint: //p' "$server_log")
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$server_log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "conformance: the server printed no endpoint" >&2; exit 1; }
# Wait until it answers a ping.
ping='{"jsonrpc":"2.0","id":1,"method":"ping"}'
for _ in $(seq 100); do
  node -e '
    fetch(process.argv[1], {method: "POST", body: process.argv[2], headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream"}})
      .then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1));' "$url" "$ping" && break
  sleep 0.1
done

status=0
run() {
  local name=$1 baseline=$2
  shift 2
  local log="$results/$name.log"
  local code=0
  conformance/node_modules/.bin/conformance server --url "$url" "$@" \
    --expected-failures "$baseline" -o "$results/$name" >"$log" 2>&1 || code=$?
  local total
  total=$(sed -n 's/^Total: \([0-9]* passed, [0-9]* failed\).*/\1/p' "$log" | tail -1)
  if [ "$code" -eq 0 ]; then
    echo "conformance $name: ${total:-no total} (as the baseline expects)"
  else
    echo "conformance $name: ${total:-no total}, NOT as the baseline expects; the end of $log:"
    tail -40 "$log"
    status=1
  fi
}
run suite-all conformance/baseline-all.yml --suite all
# No check may be skipped that the server could make run: the only skips allowed are the suite's
# own (tasks-status-notifications is always skipped: SEP-2663 moved those notifications to the
# subscriptions/listen stream, which the scenario does not open).
skipped=$(node -e '
  const fs = require("fs"), path = require("path");
  const allowed = new Set(["tasks-status-notifications"]);
  const walk = (dir) => fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name === "checks.json" ? [path.join(dir, e.name)] : []);
  for (const file of walk(process.argv[1])) {
    for (const check of JSON.parse(fs.readFileSync(file, "utf8"))) {
      if (check.status === "SKIPPED" && !allowed.has(check.id)) {
        console.log(path.basename(path.dirname(file)) + ": " + check.id + " (" + (check.errorMessage || check.description || "") + ")");
      }
    }
  }' "$results/suite-all")
if [ -n "$skipped" ]; then
  echo "conformance suite-all: checks were skipped that the server could make run:"
  printf '%s\n' "$skipped"
  status=1
else
  echo "conformance suite-all: no check skipped but the suite's own (tasks-status-notifications)"
fi
run requirements-2025-11-25 conformance/baseline-2025-11-25.yml --requirements 2025-11-25
run requirements-2026-07-28 conformance/baseline-2026-07-28.yml --requirements 2026-07-28

# Each build's runs say how they went in their counts file (its absence is a failure).
wait "${client_lanes[@]}" || true
client_lanes=()
passed=0 failed=0 expected=0
for profile in debug release; do
  cat "$results/client-$profile.out"
  read -r lane_passed lane_expected lane_failed <"$results/client-$profile.counts" || {
    echo "conformance client ($profile): the runs ended without their counts; the end of $results/client-$profile.log:"
    tail -40 "$results/client-$profile.log"
    status=1
    continue
  }
  passed=$((passed + lane_passed)) expected=$((expected + lane_expected)) failed=$((failed + lane_failed))
done
[ "$failed" -eq 0 ] || status=1
echo "conformance client (debug and release builds): $passed scenario runs passed, $expected failed as the baseline expects, $failed not as expected"
exit "$status"
