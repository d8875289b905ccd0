#!/usr/bin/env bash
# Installs Arize Phoenix, the OpenTelemetry trace backend the telemetry tests export their spans to
# and read them back from (tests/src/phoenix.rs starts `phoenix serve`), into a virtualenv in
# .tools/phoenix (git-ignored), once, from PyPI, at the versions interop/requirements-phoenix.txt
# pins. Running it again does nothing unless that file changed.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=.tools
stamp_file=$tools/phoenix.stamp
stamp=$(sha256sum interop/requirements-phoenix.txt | cut -d' ' -f1)

if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  exit 0
fi

echo "install-phoenix: installing Arize Phoenix" >&2
mkdir -p "$tools"
rm -f "$stamp_file"

python3 -m venv "$tools/phoenix"
"$tools/phoenix/bin/pip" install --quiet --disable-pip-version-check -r interop/requirements-phoenix.txt
"$tools/phoenix/bin/phoenix" --help >/dev/null

echo "$stamp" > "$stamp_file"
