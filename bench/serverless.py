"""Measures the serverless examples (examples/serverless) in their platforms' local runtimes: the
Cloudflare Worker's module size (as worker-build wrote it, optimized for size, and gzip-compressed
as Cloudflare counts it) and, for the worker in workerd and the Lambda function in cargo-lambda's
emulator, the cold start: from starting the runtime to its listening, then the first `tools/call`
(a fresh isolate or process: the module instantiated, the server built, the call answered), then a
warm one. Each is the median of RUNS starts. Prints a Markdown table for BENCHMARKS.md.

Run scripts/build-serverless.sh first (it builds the worker, installs workerd and cargo-lambda);
this script builds the Lambda function in release mode (`cargo build --release`), as deployed.

Usage: python3 bench/serverless.py [RUNS]   (default 10)
"""

import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "examples/serverless/cloudflare-worker"
LAMBDA = ROOT / "examples/serverless/aws-lambda"
CALL = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {
        "name": "forecast", "arguments": {"city": "Oslo"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}).encode()
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "forecast",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, limit=60):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.002)
    raise SystemExit(f"nothing listened on port {port} within {limit} s")


def call(url):
    """Milliseconds to answer one tools/call, which must succeed."""
    started = time.monotonic()
    request = urllib.request.Request(url, data=CALL, headers=HEADERS, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        answer = json.loads(response.read())
    elapsed = (time.monotonic() - started) * 1000
    assert answer["result"]["structuredContent"]["city"] == "Oslo", answer
    return elapsed


def measure(command, cwd, url_of, runs):
    """(listening, first call, warm call) in milliseconds, medians over `runs` starts."""
    listening, first, warm = [], [], []
    for _ in range(runs):
        port = free_port()
        started = time.monotonic()
        process = subprocess.Popen(command(port), cwd=cwd, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(port)
            listening.append((time.monotonic() - started) * 1000)
            first.append(call(url_of(port)))
            warm.append(statistics.median(call(url_of(port)) for _ in range(5)))
        finally:
            process.kill()
            process.wait()
    return [statistics.median(values) for values in (listening, first, warm)]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    module = WORKER / "build/index_bg.wasm"
    wasm = module.read_bytes()
    glue = (WORKER / "build/index.js").read_bytes()
    subprocess.run(["cargo", "build", "--quiet", "--release"], cwd=LAMBDA, check=True)
    binary = LAMBDA / "target/release/mcp-aws-lambda"

    workerd = WORKER / "node_modules/@cloudflare/workerd-linux-64/bin/workerd"
    worker = measure(
        lambda port: [str(workerd), "serve", "workerd.capnp", f"--socket-addr=http=127.0.0.1:{port}"],
        WORKER, lambda port: f"http://127.0.0.1:{port}/mcp", runs)
    cargo_lambda = ROOT / ".tools/lambda/bin/cargo-lambda"
    function = measure(
        lambda port: [str(cargo_lambda), "lambda", "watch", "--release", "--ignore-changes",
                      "--quiet", "--invoke-address", "127.0.0.1", "--invoke-port", str(port)],
        LAMBDA, lambda port: f"http://127.0.0.1:{port}/lambda-url/mcp-aws-lambda/mcp", runs)

    print(f"| Cloudflare Worker module | {len(wasm) / 1e6:.2f} MB Wasm + {len(glue) / 1e3:.0f} kB JS; "
          f"gzip: {len(gzip.compress(wasm, 9)) / 1e6:.2f} MB + {len(gzip.compress(glue, 9)) / 1e3:.0f} kB |")
    print(f"| AWS Lambda binary (release, stripped) | {binary.stat().st_size / 1e6:.2f} MB |")
    print()
    print(f"| medians of {runs} starts | runtime listening | first call (cold) | warm call |")
    print("|---|---|---|---|")
    for name, (up, cold, hot) in (("worker in workerd", worker), ("Lambda function in cargo lambda watch", function)):
        print(f"| {name} | {up:.0f} ms | {cold:.1f} ms | {hot:.2f} ms |")


if __name__ == "__main__":
    main()
