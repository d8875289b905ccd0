#!/usr/bin/env bash
# Installs valgrind (Debian's package) when the machine has none, and prints the path of the binary.
# The instruction-count gate (bench/gate.py) counts what each request costs with its callgrind tool.
set -euo pipefail

if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
  echo "install-valgrind: installing valgrind from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends valgrind >&2
fi
command -v valgrind
