#!/usr/bin/env bash
# Builds the serverless examples (examples/serverless, each a workspace of its own) for the tests
# that run them in their platforms' local runtimes (tests/tests/all/serverless.rs). It installs
# what that takes, once, from the package registries, and builds an example again only when its
# sources or the SDK's changed since its last build. (Lint them by hand: `cargo clippy --target
# wasm32-unknown-unknown` in the worker, `cargo clippy` in the function; CI has no time left.)
#
# Cloudflare Workers (examples/serverless/cloudflare-worker), for WebAssembly with worker-build, as
# `npx wrangler deploy` does, into its build/:
# - the Rust target wasm32-unknown-unknown (scripts/install-wasm-target.sh);
# - worker-build and wasm-bindgen-cli from crates.io, into .tools/workers/ (git-ignored); the
#   version of wasm-bindgen-cli must equal that of the wasm-bindgen in the example's Cargo.lock.
#   They are built without optimizations (`cargo install --debug`): ~4 minutes on two cores
#   instead of ~20, and either runs in seconds;
# - workerd (Cloudflare's runtime, which the tests run the worker in), esbuild and binaryen's
#   wasm-opt from npm, at the versions of the example's package-lock.json, into its node_modules/.
#   worker-build would download wasm-bindgen, wasm-opt and esbuild from GitHub; it is given these
#   (WASM_BINDGEN_BIN, WASM_OPT_BIN, ESBUILD_BIN) instead.
#
# AWS Lambda (examples/serverless/aws-lambda), a native binary on lambda_http, built as
# `cargo lambda watch` (the local emulator, which the tests run it in) builds it:
# - cargo-lambda from PyPI (a binary wheel, interop/requirements-lambda.txt), in a virtualenv in
#   .tools/lambda/.
#
# One run at a time (a lock in target/): a second waits for the first, then finds the examples
# built.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mkdir -p target
exec 9>target/build-serverless.lock
flock 9
worker=examples/serverless/cloudflare-worker
lambda=examples/serverless/aws-lambda

# Whether `example` was built (into `output`) after every change to its sources and the SDK's.
fresh() { # example output
  [ -f "$2" ] && [ -z "$(find "$1/src" "$1/Cargo.toml" "$1/Cargo.lock" examples/serverless/server.rs \
    mcp-core mcp-macros mcp-runtime -newer "$2" -print -quit)" ]
}

# Cloudflare Workers.
tools=.tools/workers
scripts/install-wasm-target.sh
install_crate() { # crate version binary
  if ! "$tools/bin/$3" --version 2>/dev/null | grep -qw -- "$2"; then
    echo "build-serverless: installing $1 $2 into $tools/ (a debug build, a few minutes)" >&2
    CARGO_TARGET_DIR="$tools/target" cargo install --quiet --debug --force --root "$tools" "$1" \
      --version "$2" >&2
  fi
}
install_crate worker-build 0.8.7 worker-build
install_crate wasm-bindgen-cli \
  "$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' "$worker/Cargo.lock")" \
  wasm-bindgen
rm -rf "$tools/target"
node_bin=$(scripts/install-node.sh)
stamp=$(sha256sum "$worker/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$worker/node_modules/.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "build-serverless: installing workerd, esbuild and wasm-opt (npm) into $worker/node_modules/" >&2
  PATH="$node_bin:$PATH" npm ci --silent --no-audit --no-fund --prefix "$worker"
  echo "$stamp" > "$worker/node_modules/.stamp"
fi
if ! fresh "$worker" "$worker/build/index_bg.wasm"; then
  echo "build-serverless: building $worker (worker-build --release)" >&2
  bin="$root/$worker/node_modules/.bin"
  (
    cd "$worker"
    PATH="$node_bin:$PATH" WASM_BINDGEN_BIN="$root/$tools/bin/wasm-bindgen" \
      WASM_OPT_BIN="$bin/wasm-opt" ESBUILD_BIN="$bin/esbuild" \
      "$root/$tools/bin/worker-build" --release >&2
  )
fi

# AWS Lambda.
venv=.tools/lambda
stamp=$(sha256sum interop/requirements-lambda.txt | cut -d' ' -f1)
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "build-serverless: installing cargo-lambda (PyPI) into $venv/" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r interop/requirements-lambda.txt
  echo "$stamp" > "$venv/.stamp"
fi
if ! fresh "$lambda" "$lambda/target/debug/mcp-aws-lambda"; then
  echo "build-serverless: building $lambda (cargo build)" >&2
  (cd "$lambda" && cargo build --quiet)
fi
