#!/usr/bin/env python3
"""Instructions a server executes per request, at the margin: callgrind's totals of a short and a
long run of the same load, their difference over the difference of the requests answered (so that
start-up and the first requests' warm-up cancel out). Counts, not times: the same for the same
binary and load whatever else the machine does.

    python3 bench/marginal.py target/release/bench-server                 # all three paths
    python3 bench/marginal.py target/release/bench-server http-stateless  # one of them
    python3 bench/marginal.py OLD NEW                                      # two builds, side by side

Paths: `http-stateless` (2026-07-28 `tools/call add`, 4 connections), `http-session` (2025-11-25
sessions, 4 connections), `stdio` (2025-11-25, 32 in flight), `http-session-redis` (the sessions
kept in a redis-server of the run's own), `http-task` and `http-task-redis` (2026-07-28 calls of
`add_task`, each becoming a task, in memory or in Redis). Uses `target/release/mcp` as the load
generator, as bench/run.py does. Redis's own instructions are not counted: only the server's.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: its server runner and load generator)

# Calls of `add_task`, each of which becomes a task.
TASKS = ["--wire", "stateless", "--tool", "add_task", "--args", run.ADD[3], "--tasks"]
# path: (server flags, `mcp bench` arguments, whether the server keeps its state in Redis)
HTTP_PATHS = {
    "http-stateless": ([], ["--wire", "stateless"], False),
    "http-session": (["--stateful"], ["--wire", "session"], False),
    "http-session-redis": (["--stateful"], ["--wire", "session"], True),
    "http-task": (["--tasks"], TASKS, False),
    "http-task-redis": (["--tasks"], TASKS, True),
}
PATHS = [*HTTP_PATHS, "stdio"]
SHORT, LONG = 4, 12


def totals(path, binary, seconds):
    """callgrind's total instructions of the server, and the requests it answered."""
    out = tempfile.NamedTemporaryFile(prefix="callgrind-", delete=False).name
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    load = ["--duration", str(seconds), "--warmup", "0"]
    if path == "stdio":
        server = run.pinned(run.SERVER_CPU, [*valgrind, binary, "stdio"])
        result = run.mcp_bench(["--wire", "session", "-c", "32", *load, "--", *server])
    else:
        flags, wire, shared = HTTP_PATHS[path]
        redis = run.RedisServer() if shared else None
        try:
            if redis:
                os.environ.setdefault("MCP_REQUEST_STATE_KEY", run.shared_key())
                flags = [*flags, "--redis", redis.url]
            server = run.HttpServer(binary, flags, wrapper=valgrind)
            try:
                result = run.mcp_bench([server.url, *wire, "-c", "4", *load])
            finally:
                server.stop()
        finally:
            if redis:
                redis.stop()
    time.sleep(1)
    summary = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
    os.unlink(out)
    total = re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", summary).group(1)
    return int(total.replace(",", "")), result["requests"]


def marginal(path, binary):
    short, short_requests = totals(path, binary, SHORT)
    long, long_requests = totals(path, binary, LONG)
    return (long - short) / (long_requests - short_requests)


def main():
    args = sys.argv[1:]
    paths = [a for a in args if a in PATHS] or PATHS
    binaries = [a for a in args if a not in PATHS]
    if not binaries:
        sys.exit(__doc__)
    for path in paths:
        figures = [f"{marginal(path, b):,.0f}" for b in binaries]
        print(f"{path}: {' | '.join(figures)}", flush=True)


if __name__ == "__main__":
    main()
