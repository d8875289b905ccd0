#!/usr/bin/env bash
# What `mcp proxy` adds to a call: `mcp bench` of `bench-server`'s `add`, directly and through
# the proxy, over HTTP and stdio, with the CPU each process spends per call (utime + stime over
# the run). Each run lasts 5 seconds; the script stops the processes it started, by their ids.
#
#   cargo build --release -p mcp-runtime-cli --bin mcp -p examples --bin bench-server
#   bench/proxy.sh
set -u
cd "$(dirname "$0")/.."
mcp=target/release/mcp
server=target/release/bench-server
args=(--tool add --args '{"a":1,"b":2}' -c 4 -d 5)
logs=$(mktemp -d)
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
endpoint() {
  for _ in $(seq 100); do
    url=$(grep -o "http://[^ ]*/mcp" "$1" | head -1)
    [ -n "$url" ] && { echo "$url"; return; }
    sleep 0.05
  done
}
per_call() { echo $(( ($2 - $1) * 1000000 / tick / $3 )); }
requests() { echo "$1" | grep -o "[0-9]* requests" | grep -o "[0-9]*"; }

"$server" http 127.0.0.1:0 2>"$logs/server" & upstream=$!
url=$(endpoint "$logs/server")
before=$(cpu $upstream); out=$("$mcp" bench "$url" "${args[@]}" 2>&1); after=$(cpu $upstream)
echo "http direct: $out | server CPU $(per_call "$before" "$after" "$(requests "$out")") us/call"

"$mcp" proxy --http 127.0.0.1:0 -- "$server" stdio 2>"$logs/proxy1" & proxy=$!
purl=$(endpoint "$logs/proxy1"); sleep 0.3; child=$(pgrep -P $proxy bench-server)
p0=$(cpu $proxy); c0=$(cpu "$child")
out=$("$mcp" bench "$purl" "${args[@]}" 2>&1)
p1=$(cpu $proxy); c1=$(cpu "$child"); n=$(requests "$out")
echo "http proxy, upstream on stdio: $out | proxy CPU $(per_call "$p0" "$p1" "$n") us/call, upstream $(per_call "$c0" "$c1" "$n") us/call"
kill $proxy

"$mcp" proxy --http 127.0.0.1:0 "$url" 2>"$logs/proxy2" & proxy=$!
purl=$(endpoint "$logs/proxy2")
p0=$(cpu $proxy); c0=$(cpu $upstream)
out=$("$mcp" bench "$purl" "${args[@]}" 2>&1)
p1=$(cpu $proxy); c1=$(cpu $upstream); n=$(requests "$out")
echo "http proxy, upstream over http: $out | proxy CPU $(per_call "$p0" "$p1" "$n") us/call, upstream $(per_call "$c0" "$c1" "$n") us/call"
kill $proxy

echo "stdio direct: $("$mcp" bench "${args[@]}" -- "$server" stdio 2>&1 | tail -1)"
echo "stdio proxy, upstream on stdio: $("$mcp" bench "${args[@]}" -- "$mcp" proxy -- "$server" stdio 2>&1 | tail -1)"
echo "stdio proxy, upstream over http: $("$mcp" bench "${args[@]}" -- "$mcp" proxy --stdio "$url" 2>&1 | tail -1)"
kill $upstream
rm -rf "$logs"
