#!/usr/bin/env bash
# One MCP service as several instances behind a load balancer, on this machine's loopback: a
# redis-server, INSTANCES (3) instances of SERVER (notes-server) sharing it (--redis, one
# requestState key), and HAProxy in front, round-robin per request with no stickiness. Prints
# each instance (`instance N: pid PID http://...`) and then the service's endpoint
# (`MCP endpoint: http://127.0.0.1:PORT/mcp`) on stderr, and runs until Ctrl-C or SIGTERM, when it
# stops what it started.
#
#   examples/deploy/run.sh                                  # notes-server, release build
#   SERVER=conformance-server PORT=8000 examples/deploy/run.sh
#
# Settings (environment): SERVER (notes-server, conformance-server or bench-server), INSTANCES
# (3), PORT (the load balancer's; a free one by default), PROFILE (release, or debug),
# NO_BUILD=1 (use the binary already built), MCP_REQUEST_STATE_KEY (a random one by default).
# Redis (Debian's redis-server) and HAProxy are installed by scripts/install-redis.sh and
# scripts/install-haproxy.sh when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

SERVER=${SERVER:-notes-server}
INSTANCES=${INSTANCES:-3}
PROFILE=${PROFILE:-release}
redis_server=$(scripts/install-redis.sh)
haproxy=$(scripts/install-haproxy.sh)
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --quiet --profile "$PROFILE" -p examples --bin "$SERVER" >&2
fi
target=${CARGO_TARGET_DIR:-target}
case "$PROFILE" in dev) binary="$target/debug/$SERVER" ;; *) binary="$target/$PROFILE/$SERVER" ;; esac
case "$SERVER" in
  notes-server) listen=(--http 127.0.0.1:0) ;;
  *) listen=(http 127.0.0.1:0) ;;
esac

dir=$(mktemp -d)
pids=()
stop() {
  trap - EXIT INT TERM
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 0' INT TERM

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (10 s at most) until something listens on 127.0.0.1:$1.
wait_for_port() {
  for _ in $(seq 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "deploy: nothing listens on port $1" >&2
  return 1
}

redis_port=$(free_port)
"$redis_server" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
  >"$dir/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
wait_for_port "$redis_port"
export MCP_REDIS_URL="redis://127.0.0.1:$redis_port/"
MCP_REQUEST_STATE_KEY=${MCP_REQUEST_STATE_KEY:-$(head -c 32 /dev/urandom | base64)}
export MCP_REQUEST_STATE_KEY

servers=""
for i in $(seq 0 $((INSTANCES - 1))); do
  log="$dir/instance-$i.log"
  # Made before the instance starts, so that reading it never races the redirection.
  : >"$log"
  RUST_LOG=${RUST_LOG:-warn} "$binary" "${listen[@]}" 2>"$log" &
  pid=$!
  pids+=("$pid")
  url=
  for _ in $(seq 200); do
    url=$(sed -n 's/^MCP endpoint: //p' "$log")
    [ -n "$url" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      status=0
      wait "$pid" || status=$?
      echo "deploy: instance $i exited (status $status) before printing its endpoint; its log:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.05
  done
  [ -n "$url" ] || { echo "deploy: instance $i printed no endpoint" >&2; exit 1; }
  echo "instance $i: pid $pid $url" >&2
  address=${url#http://}
  servers+="    server i$i ${address%/mcp} check inter 500ms fall 1 rise 2"$'\n'
done

port=${PORT:-$(free_port)}
cat >"$dir/haproxy.cfg" <<CONFIG
global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 120s
    timeout server 120s
    timeout http-keep-alive 30s
    # A request whose instance cannot be reached goes to another.
    retries 2
    option redispatch

frontend mcp
    bind 127.0.0.1:$port
    default_backend instances

backend instances
    # Each request on its own, whatever connection or session it comes on: no stickiness.
    balance roundrobin
    http-response set-header X-Instance %[srv_name]
$servers
CONFIG
"$haproxy" -f "$dir/haproxy.cfg" -db >"$dir/haproxy.log" 2>&1 &
haproxy_pid=$!
pids+=("$haproxy_pid")
wait_for_port "$port"
echo "MCP endpoint: http://127.0.0.1:$port/mcp" >&2
# Until Redis or HAProxy stops (an instance may die: the others serve), or a signal stops it.
wait -n "$redis_pid" "$haproxy_pid"
