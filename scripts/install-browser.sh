#!/usr/bin/env bash
# Installs what the MCP Apps browser test (tests/browser) needs, once, and prints the path of the
# browser:
# - Chromium (Debian's package), when the machine has none at /usr/bin/chromium; the test drives it
#   with playwright-core, which downloads no browser of its own;
# - Node 22 (scripts/install-node.sh);
# - the test's packages, at the versions tests/browser/package-lock.json pins, and its host page and
#   sandbox proxy built into tests/browser/dist (git-ignored).
# Running it again does nothing unless the lock file or the host's sources changed.
set -euo pipefail
cd "$(dirname "$0")/.."

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
  echo "install-browser: installing chromium from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends chromium >&2
fi

node_bin=$(scripts/install-node.sh)
dir=tests/browser
tools=.tools
stamp_file=$tools/browser.stamp
stamp=$(cat "$dir/package-lock.json" "$dir/build.mjs" "$dir"/host/* | sha256sum | cut -d' ' -f1)

# The stamp in .tools/ says what was installed; the copy in dist/ says it was in this work tree.
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] &&
  [ -f "$dir/dist/.stamp" ] && [ "$(cat "$dir/dist/.stamp")" = "$stamp" ]; then
  echo "$chromium"
  exit 0
fi

echo "install-browser: installing and building the browser test ($dir)" >&2
mkdir -p "$tools"
PATH="$node_bin:$PATH" npm ci --silent --no-audit --no-fund --prefix "$dir" >&2
PATH="$node_bin:$PATH" node "$dir/build.mjs" >&2
echo "$stamp" > "$dir/dist/.stamp"
echo "$stamp" > "$stamp_file"
echo "$chromium"
