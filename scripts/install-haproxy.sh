#!/usr/bin/env bash
# Installs HAProxy (Debian's package) when the machine has none, and prints the path of the
# binary. examples/deploy/run.sh, and the tests that drive it, run their own haproxy with a
# configuration of their own on loopback; nothing here starts one or enables a service.
set -euo pipefail

find_haproxy() { command -v haproxy || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; }; }
if ! find_haproxy >/dev/null; then
  echo "install-haproxy: installing haproxy from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends haproxy >&2
fi
find_haproxy
