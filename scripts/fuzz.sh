#!/usr/bin/env bash
# The fuzz targets of fuzz/ (cargo fuzz, libFuzzer, on the nightly toolchain), each run for a short
# bounded time over its committed corpus, so that a regression shows in CI:
#   scripts/fuzz.sh            every target for FUZZ_SECONDS (10) each
#   scripts/fuzz.sh TARGET...  those targets
# cargo-fuzz is installed into ~/.cargo/bin on first use, unoptimised (`--debug`: it only drives
# cargo and libFuzzer, and builds sooner). New inputs go to a scratch corpus under
# fuzz/target/, never into the committed one (grow that with `cargo +nightly fuzz run TARGET` and
# `cargo +nightly fuzz cmin TARGET`). A crash fails the script, leaving its input in
# fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: the nightly toolchain is missing (rustup toolchain list); cargo fuzz needs it" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz" >&2
  cargo install --quiet --locked --debug cargo-fuzz@0.13.2
fi

seconds=${FUZZ_SECONDS:-10}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi
# Without sanitizers: the targets are safe Rust, looking for panics, and build in half the time.
# A short run gains little from full optimisation and much from a quicker build: opt-level 1 and
# line tables only, unless the caller sets these (a long hunt wants CARGO_PROFILE_RELEASE_OPT_LEVEL=3).
export CARGO_PROFILE_RELEASE_OPT_LEVEL=${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}
export CARGO_PROFILE_RELEASE_DEBUG=${CARGO_PROFILE_RELEASE_DEBUG:-line-tables-only}
cargo +nightly fuzz build -O --sanitizer none
failed=0
for target in "${targets[@]}"; do
  scratch="target/scratch-corpus/$target"
  log="target/$target.log"
  mkdir -p "$scratch"
  status=0
  cargo +nightly fuzz run -O --sanitizer none "$target" "$scratch" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if [ "$status" -eq 0 ]; then
    echo "fuzz: $target: ${runs:-?} executions in ${seconds}s, no crash" >&2
  else
    echo "fuzz: $target FAILED (exit $status):" >&2
    grep -E -A20 'panicked|ERROR|SUMMARY' "$log" | head -40 >&2 || tail -20 "$log" >&2
    failed=1
  fi
done
exit "$failed"
