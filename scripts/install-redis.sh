#!/usr/bin/env bash
# Installs redis-server (Debian's package) when the machine has none, and prints the path of the
# binary. The tests of the Redis-backed stores start their own redis-server on a free loopback port
# in a temporary folder (tests::redis::RedisServer); nothing here starts one or enables a service.
set -euo pipefail

if ! command -v redis-server >/dev/null 2>&1; then
  echo "install-redis: installing redis-server from Debian's packages" >&2
  if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  # The package's own service is not wanted: the tests run their own servers.
  $sudo apt-get install -y -qq --no-install-recommends redis-server >&2
fi
command -v redis-server
