#!/usr/bin/env python3
"""What a request costs as the work around it grows: instructions per request (callgrind) and the
server's resident memory, against the number of tools, of idle sessions, of concurrent streams,
and against the size of the message; each series with the shape it should have, checked.

    python3 bench/growth.py              # every series: a Markdown table on stdout (~15 minutes)
    python3 bench/growth.py tools sizes  # some of them

Series (bench-server over HTTP, `mcp bench` as the load, as bench/run.py and bench/marginal.py):
- `tools`: 10, 1,000 and 10,000 tools (`--extra-tools`), 2026-07-28 `tools/call add`;
- `sessions`: 1, 10,000 and 100,000 idle 2025-11-25 sessions (`mcp bench --idle-sessions`) beside
  the 4 sessions of the load;
- `streams`: 16, 512 and 1,024 connections, each with its answer in flight as an SSE stream
  (`--sse`);
- `sizes`: `tools/call echo` of 1 KiB, 16 KiB, 256 KiB and 4 MiB request bodies (the default
  body limit); the answer echoes the text, so as much goes back.

Instructions are counted only while the measured load runs: the server starts under callgrind
with instrumentation off (setting up 100,000 sessions would take long otherwise), which is turned
on, warmed up, zeroed, and dumped after the load (`callgrind_control`). Memory is `VmRSS` of a
second run without valgrind, after the same setup and load.

Shapes: "flat" holds when the largest figure is within 25% of the smallest; "linear" (per-request
cost against message size) when the instructions per byte of the largest size are within 25% of
those of the second largest (at 1 KiB the fixed cost dominates). Memory against tools, sessions
and streams is checked linear the same way, on the growth per item between the last two points.
Exits 1 when a shape does not hold.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: its server runner and load generator)

BENCH_SERVER = run.SERVERS["ours"]
TOLERANCE = 0.25
LOAD_SECONDS = "4"
BODY_LIMIT = 4 * 1024 * 1024
STATELESS = ["--wire", "stateless"]
SESSION = ["--wire", "session"]


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def callgrind(pid, *args):
    subprocess.run(["callgrind_control", *args, str(pid)], check=True, capture_output=True)


def measure(flags, load, setup=None, concurrency=4):
    """(instructions per request, VmRSS KiB after the load) of bench-server with `flags` under
    `load` (`mcp bench` arguments), after `setup(server)`."""
    out = tempfile.NamedTemporaryFile(prefix="growth-", delete=False).name
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    server = run.HttpServer(BENCH_SERVER, flags, wrapper=valgrind)
    try:
        if setup:
            setup(server)
        pid = server.process.pid
        callgrind(pid, "--instr=on")
        # Warm-up: the code is translated again once instrumented.
        run.mcp_bench([server.url, *load, "-c", str(concurrency), "--duration", "3", "--warmup", "0"])
        callgrind(pid, "--zero")
        result = run.mcp_bench([server.url, *load, "-c", str(concurrency), "--duration", LOAD_SECONDS,
                                "--warmup", "0"])
        callgrind(pid, "--dump")
    finally:
        server.stop()
    dumps = sorted(Path(out).parent.glob(Path(out).name + "*"))
    totals = []
    for dump in dumps:
        summary = subprocess.run(["callgrind_annotate", str(dump)], capture_output=True, text=True).stdout
        found = re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", summary)
        totals.append((dump, int(found.group(1).replace(",", "")) if found else 0))
        dump.unlink()
    # The explicit dump is the one numbered `.1`; the file without a number holds what ran after.
    dumped = [total for dump, total in totals if dump.name.endswith(".1")]
    if not dumped or result["requests"] == 0:
        raise RuntimeError(f"no dump or no requests: {totals} {result}")
    instructions = dumped[0] / result["requests"]

    server = run.HttpServer(BENCH_SERVER, flags)
    try:
        if setup:
            setup(server)
        run.mcp_bench([server.url, *load, "-c", str(concurrency), "--duration", "2", "--warmup", "0"])
        rss = rss_kib(server.process.pid)
    finally:
        server.stop()
    return instructions, rss


def idle_sessions(count):
    def setup(server):
        run.mcp_bench([server.url, "--idle-sessions", str(count), "--pid", str(server.process.pid),
                       "-c", "8", "--settle", "0"])
    return setup


def echo_args(body_bytes):
    """A file holding `echo`'s arguments such that the whole request body is `body_bytes`."""
    envelope = len('{"jsonrpc":"2.0","id":1000000,"method":"tools/call","params":{"name":"echo",'
                   '"arguments":{"text":""},"_meta":{"io.modelcontextprotocol/protocolVersion":'
                   '"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},'
                   '"io.modelcontextprotocol/clientInfo":{"name":"mcp-bench","version":"0.1.0"}}}}')
    path = tempfile.NamedTemporaryFile(prefix="growth-args-", suffix=".json", delete=False).name
    Path(path).write_text(json.dumps({"text": "x" * (body_bytes - envelope - 64)}))
    return path


def series_tools():
    rows = []
    for tools in (10, 1_000, 10_000):
        rows.append((f"{tools:,} tools", *measure(["--extra-tools", str(tools - 3)], [*run.ADD, *STATELESS]),
                     tools))
    return "tools", "`tools/call add`, 2026-07-28, 4 connections", rows, ("flat", "linear")


def series_sessions():
    rows = []
    for sessions in (1, 10_000, 100_000):
        flags = ["--stateful", "--max-sessions", str(sessions + 1_000)]
        rows.append((f"{sessions:,} idle session{'s' if sessions > 1 else ''}",
                     *measure(flags, [*run.ADD, *SESSION], setup=idle_sessions(sessions)), sessions))
    return "sessions", "`tools/call add`, 2025-11-25 sessions, 4 connections", rows, ("flat", "linear")


def series_streams():
    rows = []
    for streams in (16, 512, 1_024):
        rows.append((f"{streams:,} streams",
                     *measure(["--sse"], [*run.ADD, *STATELESS], concurrency=streams), streams))
    return "streams", "`tools/call add` answered as SSE streams, 2026-07-28", rows, ("flat", "linear")


def series_sizes():
    rows = []
    for size in (1024, 16 * 1024, 256 * 1024, BODY_LIMIT):
        args = echo_args(size)
        try:
            measured = measure([], ["--tool", "echo", "--args", f"@{args}", *STATELESS])
        finally:
            os.unlink(args)
        rows.append((f"{size // 1024:,} KiB", *measured, size))
    return "sizes", "`tools/call echo` with the body size named, 2026-07-28, 4 connections", rows, ("linear", None)


SERIES = {"tools": series_tools, "sessions": series_sessions, "streams": series_streams, "sizes": series_sizes}


def shape_holds(shape, rows, column):
    """Whether `rows`' figures in `column` (1 instructions, 2 RSS) have `shape`, and why."""
    figures = [row[column] for row in rows]
    counts = [row[3] for row in rows]
    if shape == "flat":
        low, high = min(figures), max(figures)
        spread = high / low - 1
        return spread <= TOLERANCE, f"flat: largest {spread:+.0%} over the smallest"
    # Linear: the growth per item (or per byte) over the last two steps agrees.
    if column == 1:
        per = [figures[i] / counts[i] for i in (-2, -1)]
    else:
        per = [(figures[i] - figures[i - 1]) / (counts[i] - counts[i - 1]) for i in (-2, -1)]
    if per[0] <= 0:
        return False, f"linear: no growth at first ({per[0]:.3g} per item)"
    spread = per[1] / per[0] - 1
    unit = "instructions per byte" if column == 1 else "KiB per item"
    return abs(spread) <= TOLERANCE, f"linear: {per[1]:.3g} {unit}, {spread:+.0%} over the step before"


def main():
    chosen = [a for a in sys.argv[1:] if a in SERIES] or list(SERIES)
    os.environ.setdefault("MCP_REQUEST_STATE_KEY", run.shared_key())
    lines = ["| series | point | instructions per request | server RSS | shape |", "|---|---|---|---|---|"]
    failed = []
    for key in chosen:
        started = time.monotonic()
        name, load, rows, (cpu_shape, rss_shape) = SERIES[key]()
        run.log(f"{name}: measured in {time.monotonic() - started:.0f} s")
        verdicts = []
        for shape, column, what in ((cpu_shape, 1, "instructions"), (rss_shape, 2, "RSS")):
            if shape is None:
                continue
            holds, why = shape_holds(shape, rows, column)
            verdicts.append(f"{what} {why} ({'holds' if holds else '**does not hold**'})")
            if not holds:
                failed.append(f"{name} {what}")
        for i, (point, instructions, rss, _) in enumerate(rows):
            shape = "; ".join(verdicts) if i == 0 else ""
            lines.append(f"| {name}: {load} | {point} | {instructions:,.0f} | {rss / 1024:,.1f} MiB | {shape} |")
    print("\n".join(lines))
    if failed:
        print(f"\nshapes that do not hold: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
