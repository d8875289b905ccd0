#!/usr/bin/env python3
"""Runs the comparison and writes BENCHMARKS.md.

Our `bench-server` (examples/), the same tools written with rmcp (bench/rmcp-server) and the bare
baseline (bench/bare-server) are measured by `mcp bench` (mcp-cli) in one run, alternately
(ours, rmcp, bare, ours, rmcp, bare, ...), each scenario several rounds; the server runs on one core
and the load generator on another when the machine has two. Medians and ratios go to
BENCHMARKS.md; the section "Where the time goes" of an existing BENCHMARKS.md is kept.

    python3 bench/run.py                 # builds everything, then about 10 minutes of runs
    python3 bench/run.py --rounds 5 --duration 10
    python3 bench/run.py --quick         # 1 round of 2 s, to try the script
    python3 bench/run.py --shared        # ours with its state in Redis, and 1 to 3 instances
                                         # behind HAProxy: a Markdown report on stdout
"""

import argparse
import base64
import datetime
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = ROOT / "BENCHMARKS.md"
KEPT_SECTION = "## Where the time goes"

SERVERS = {
    "ours": ROOT / "target/release/bench-server",
    "rmcp": BENCH / "target/release/rmcp-server",
    "bare": BENCH / "target/release/bare-server",
}
# The benchmark tools on the SDK's default features: the server whose start is compared with rmcp's.
START_SERVER = BENCH / "target/release/start-server"
MCP = ROOT / "target/release/mcp"
# The call every scenario makes, unless it names another tool.
ADD = ["--tool", "add", "--args", '{"a":1,"b":2}']
SAVED = BENCH / "target/last-results.json"
SAVED_INSTRUCTIONS = BENCH / "target/last-instructions.json"

# (key, title, kind, server flags, `mcp bench` arguments)
SCENARIOS = [
    ("http-1", "HTTP stateless (2026-07-28), 1 connection", "http", [], ["--wire", "stateless", "-c", "1"]),
    ("http-16", "HTTP stateless (2026-07-28), 16 connections", "http", [], ["--wire", "stateless", "-c", "16"]),
    ("http-64", "HTTP stateless (2026-07-28), 64 connections", "http", [], ["--wire", "stateless", "-c", "64"]),
    ("sessions-16", "HTTP sessions (2025-11-25), 16 connections", "http", ["--stateful"], ["--wire", "session", "-c", "16"]),
    ("stdio-1", "stdio (2025-11-25), 1 in flight", "stdio", [], ["--wire", "session", "-c", "1"]),
    ("stdio-32", "stdio (2025-11-25), 32 in flight", "stdio", [], ["--wire", "session", "-c", "32"]),
    ("memory", "memory of 1,000 idle sessions", "sessions", ["--stateful"], ["--idle-sessions", "1000", "-c", "8"]),
]

# (scenario, comparison, how many times ours must be at least, the figure compared)
TARGETS = [
    ("http-16", "rmcp", 2.0, "rps"),
    ("http-16", "bare", 0.8, "rps"),
    ("stdio-32", "rmcp", 2.0, "rps"),
    ("memory", "rmcp", 2.0, "memory"),  # ours at most half of rmcp's: rmcp/ours >= 2
]
# The in-process target, read from the criterion micro-benchmarks.
IN_PROCESS_BENCH = "handle_raw/tools/call add (2025-11-25 session)"
IN_PROCESS_TARGET_NS = 2000


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def build():
    log("building (release)...")
    subprocess.run(["cargo", "build", "--release", "-p", "examples", "--bin", "bench-server", "-p", "mcp-runtime-cli", "--bin", "mcp"],
                   cwd=ROOT, check=True)
    subprocess.run(
        ["cargo", "build", "--release", "-p", "rmcp-server", "-p", "bare-server", "-p", "start-server"],
        cwd=BENCH,
        check=True,
    )


def cpus():
    """The cores for the server and for the load generator (None when there is only one)."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) >= 2 and shutil.which("taskset"):
        return str(allowed[0]), str(allowed[1])
    return None, None


SERVER_CPU, LOAD_CPU = cpus()


def pinned(cpu, command):
    return (["taskset", "-c", cpu] if cpu is not None else []) + [str(c) for c in command]


class HttpServer:
    """A server started on a free port; its endpoint is read from its stderr."""

    def __init__(self, binary, flags, wrapper=()):
        self.log = tempfile.NamedTemporaryFile(prefix="bench-server-", suffix=".log", delete=False)
        command = pinned(SERVER_CPU, [*wrapper, binary, "http", "127.0.0.1:0", *flags])
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        self.url = self._endpoint()

    def _endpoint(self):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = Path(self.log.name).read_text(errors="replace")
            # The whole line: stderr is unbuffered, and the line may be read while half written.
            found = re.search(r"MCP endpoint: (http://\S+)\n", text)
            if found:
                return found.group(1)
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {text}")
            time.sleep(0.05)
        raise RuntimeError("the server did not print its endpoint")

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.unlink(self.log.name)


def mcp_bench(args):
    """`mcp --json bench ARGS`, calling `add` unless the arguments name a tool or measure idle
    sessions: the result as a dict."""
    if "--tool" not in args and "--idle-sessions" not in args:
        args = [*ADD, *args]
    command = pinned(LOAD_CPU, [MCP, "--json", "bench", *args])
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(kind, binary, flags, extra, load):
    if kind == "stdio":
        server = pinned(SERVER_CPU, [binary, "stdio"])
        return mcp_bench([*load, *extra, "--", *server])
    server = HttpServer(binary, flags)
    try:
        time.sleep(0.3)
        if kind == "http":
            return mcp_bench([server.url, *load, *extra])
        return mcp_bench([server.url, "--pid", str(server.process.pid), *load, *extra])
    finally:
        server.stop()


def instructions_per_request(kind, binary):
    """Instructions the server executes per request (valgrind's callgrind, which counts rather
    than times: the same for the same binary and load, whatever else the machine does), over
    4 HTTP connections or 32 requests in flight on stdio, for 5 s."""
    out = tempfile.NamedTemporaryFile(prefix="callgrind-", delete=False).name
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    load = ["--duration", "5", "--warmup", "0"]
    if kind == "stdio":
        server = pinned(SERVER_CPU, [*valgrind, binary, "stdio"])
        result = mcp_bench(["--wire", "session", "-c", "32", *load, "--", *server])
    else:
        server = HttpServer(binary, [], wrapper=valgrind)
        try:
            result = mcp_bench([server.url, "--wire", "stateless", "-c", "4", *load])
        finally:
            # A terminating signal, so that callgrind writes its counts.
            server.stop()
    time.sleep(1)
    summary = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
    os.unlink(out)
    total = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", summary).group(1).replace(",", ""))
    return total / result["requests"]


def figure(result, what):
    return result["rss_per_session_kib"] if what == "memory" else result["rps"]


def median(results, key):
    values = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(values) if values else None


def machine():
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        memory = f", {kib / 1024 / 1024:.0f} GiB"
    except (OSError, AttributeError):
        pass
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{model}, {os.cpu_count()} cores{memory}; Linux {platform.release()}; {rustc}"


def locked_version(lock, name):
    text = (lock).read_text()
    found = re.search(r'name = "' + re.escape(name) + r'"\nversion = "([^"]+)"', text)
    return found.group(1) if found else "?"


def fmt_rps(v):
    return "–" if v is None else f"{v:,.0f}"


def fmt_us(v):
    return "–" if v is None else (f"{v / 1000:.2f} ms" if v >= 1000 else f"{v:.0f} µs")


def fmt_ratio(a, b):
    return "–" if not a or not b else f"{a / b:.2f}×"


def report(results, instructions, args, started):
    lines = []
    add = lines.append
    add("# Benchmarks")
    add("")
    add("Written by `python3 bench/run.py` "
        f"({args.rounds} rounds of {args.duration:g} s after {args.warmup:g} s of warm-up per server and scenario, "
        "servers alternating within each round); rerun it to refresh the figures. "
        f"Measured on {started:%Y-%m-%d}.")
    add("")
    add(f"- Machine: {machine()}.")
    if SERVER_CPU is not None:
        add(f"- The server runs on core {SERVER_CPU} and the load generator on core {LOAD_CPU} (`taskset`).")
    else:
        add("- Server and load generator share the cores (no second core or no `taskset`).")
    add("- Servers: **ours** is `examples/src/bin/bench_server.rs`; **rmcp** is `bench/rmcp-server` "
        f"(rmcp {locked_version(BENCH / 'Cargo.lock', 'rmcp')} from crates.io, `TCP_NODELAY` on accepted sockets, "
        "JSON answers, no SSE keep-alive, no answer cache); **bare** is `bench/bare-server` "
        "(hyper, or a plain stdin loop, answering every request with a canned result for its id: "
        "the limit any SDK can reach). All three are release builds with three tools: `echo`, `add`, `add_json`.")
    add("- Load: `mcp bench` (mcp-cli), a closed loop (each connection keeps one request in flight; stdio keeps "
        "K in flight over the pipe) calling `tools/call add {a: 1, b: 2}`; the 2026-07-28 wire carries "
        "`_meta` and the `Mcp-Method`/`Mcp-Name` headers on every request, the 2025-11-25 wire initializes "
        "once per connection. Memory: `mcp bench --idle-sessions 1000` opens 1,000 sessions and reads the server's "
        "`VmRSS` before and after.")
    add("")
    add("## Results (medians)")
    add("")
    add("| scenario | ours | rmcp | bare | ours/rmcp | ours/bare | p50 ours / rmcp / bare | p99 ours / rmcp / bare |")
    add("|---|---|---|---|---|---|---|---|")
    for key, title, kind, _, _ in SCENARIOS:
        if key == "memory" or key not in results:
            continue
        r = results[key]
        rps = {s: median(r[s], "rps") for s in SERVERS}
        p50 = " / ".join(fmt_us(median(r[s], "p50_us")) for s in SERVERS)
        p99 = " / ".join(fmt_us(median(r[s], "p99_us")) for s in SERVERS)
        add(f"| {title} | {fmt_rps(rps['ours'])} req/s | {fmt_rps(rps['rmcp'])} req/s | {fmt_rps(rps['bare'])} req/s "
            f"| {fmt_ratio(rps['ours'], rps['rmcp'])} | {fmt_ratio(rps['ours'], rps['bare'])} | {p50} | {p99} |")
    if "memory" in results:
        r = results["memory"]
        mem = {s: median(r[s], "rss_per_session_kib") for s in SERVERS}
        add("")
        add("| memory | ours | rmcp | bare | ours/rmcp | ours/bare |")
        add("|---|---|---|---|---|---|")
        add("| RSS per idle session (1,000 sessions) | "
            + " | ".join("–" if mem[s] is None else f"{mem[s]:.2f} KiB" for s in SERVERS)
            + f" | {fmt_ratio(mem['ours'], mem['rmcp'])} | {fmt_ratio(mem['ours'], mem['bare'])} |")
    if "stdio-32" in results:
        r = results["stdio-32"]
        peak = " / ".join(fmt_kib(median(r[s], "peak_rss_kib")) for s in SERVERS)
        add("")
        add(f"Peak RSS of the stdio servers at 32 in flight (ours / rmcp / bare): {peak}.")
    add("")
    add("## Targets")
    add("")
    add("| target | measured | met |")
    add("|---|---|---|")
    for key, other, factor, what in TARGETS:
        if key not in results:
            continue
        ours = median(results[key]["ours"], "rss_per_session_kib" if what == "memory" else "rps")
        theirs = median(results[key][other], "rss_per_session_kib" if what == "memory" else "rps")
        if what == "memory":
            name = f"memory per idle session ≤ ½ of {other}'s"
            ratio = theirs / ours if ours and theirs else None
            shown = "–" if ratio is None else f"ours is {1 / ratio:.2f}× {other}'s"
        else:
            title = next(t for k, t, *_ in SCENARIOS if k == key)
            name = f"{title}: ≥ {factor}× {other}"
            ratio = ours / theirs if ours and theirs else None
            shown = "–" if ratio is None else f"{ratio:.2f}×"
        met = "–" if ratio is None else ("yes" if ratio >= factor else "**no**")
        add(f"| {name} | {shown} | {met} |")
    micro = criterion_medians()
    in_process = dict(micro).get(IN_PROCESS_BENCH)
    if in_process is not None:
        met = "yes" if in_process <= IN_PROCESS_TARGET_NS else "**no**"
        add(f"| in-process `tools/call add` (criterion `{IN_PROCESS_BENCH}`): ≤ {fmt_ns(IN_PROCESS_TARGET_NS)} median "
            f"| {fmt_ns(in_process)} | {met} |")
    if instructions:
        add("")
        add("## Instructions per request (callgrind)")
        add("")
        add("Counted, not timed, so these do not vary with the machine's load: everything the server "
            "executed during 5 s of load (start-up included) divided by the requests answered. HTTP: "
            "2026-07-28 stateless `tools/call add`, 4 connections; stdio: 2025-11-25, 32 in flight.")
        add("")
        add("| transport | ours | rmcp | bare | rmcp/ours |")
        add("|---|---|---|---|---|")
        for kind, counts in instructions.items():
            shown = " | ".join("–" if counts[s] is None else f"{counts[s]:,.0f}" for s in SERVERS)
            add(f"| {kind} | {shown} | {fmt_ratio(counts['rmcp'], counts['ours'])} |")
    if micro:
        add("")
        add("## Micro-benchmarks (criterion, in process)")
        add("")
        add("`cargo bench --manifest-path bench/Cargo.toml -p micro` (medians of its last run):")
        add("")
        add("| benchmark | median |")
        add("|---|---|")
        for name, ns in micro:
            add(f"| {name} | {fmt_ns(ns)} |")
    add("")
    add("## Every run")
    add("")
    add("<details><summary>requests per second (KiB per session for memory), in the order run</summary>")
    add("")
    add("| scenario | server | runs |")
    add("|---|---|---|")
    for key, title, *_ in SCENARIOS:
        if key not in results:
            continue
        for s in SERVERS:
            what = "memory" if key == "memory" else "rps"
            runs = ", ".join(
                "–" if figure(x, what) is None else (f"{figure(x, what):.2f}" if what == "memory" else f"{figure(x, what):,.0f}")
                for x in results[key][s]
            )
            errors = sum(x.get("errors") or 0 for x in results[key][s])
            add(f"| {title} | {s} | {runs}{f' ({errors} errors)' if errors else ''} |")
    add("")
    add("</details>")
    add("")
    return "\n".join(lines)


def fmt_kib(v):
    return "–" if v is None else f"{v / 1024:.1f} MiB"


def fmt_ns(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def criterion_medians():
    """(benchmark, median ns) from the estimates criterion left in bench/target/criterion."""
    found = []
    base = BENCH / "target/criterion"
    for estimates in sorted(base.glob("**/new/estimates.json")):
        bench = json.loads((estimates.parent / "benchmark.json").read_text())
        ns = json.loads(estimates.read_text())["median"]["point_estimate"]
        found.append((bench.get("full_id") or bench.get("title"), ns))
    return found


def kept_section():
    if not OUT.exists():
        return ""
    text = OUT.read_text()
    at = text.find(KEPT_SECTION)
    return text[at:] if at >= 0 else ""


# The shared-state scenarios (issue 19), ours only: each with the in-memory stores and with a
# redis-server of its own (on the server's core: its work is part of the cost), alternately.
# (key, title, server flags, `mcp bench` arguments)
SHARED_SCENARIOS = [
    ("sessions-16", "HTTP sessions (2025-11-25), 16 connections", ["--stateful"],
     ["--wire", "session", "-c", "16"]),
    ("tasks-16", "HTTP stateless (2026-07-28) calls that each become a task, 16 connections", ["--tasks"],
     ["--wire", "stateless", "-c", "16", "--tool", "add_task", "--args", ADD[3], "--tasks"]),
]


class RedisServer:
    """A redis-server on a free loopback port in a temporary folder, saving nothing."""

    def __init__(self):
        binary = subprocess.run([ROOT / "scripts/install-redis.sh"], capture_output=True, text=True,
                                check=True).stdout.strip()
        self.dir = tempfile.mkdtemp(prefix="bench-redis-")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        command = pinned(SERVER_CPU, [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", self.dir])
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        self.url = f"redis://127.0.0.1:{self.port}/"

    def stop(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def shared_key():
    return base64.b64encode(os.urandom(32)).decode()


def measure_shared(args):
    """The shared scenarios, in memory and with Redis, alternating: {key: {store: [results]}}."""
    os.environ.setdefault("MCP_REQUEST_STATE_KEY", shared_key())
    timing = ["--duration", str(args.duration), "--warmup", str(args.warmup)]
    results = {}
    for key, title, flags, load in SHARED_SCENARIOS:
        results[key] = {"memory": [], "redis": []}
        for round_ in range(args.rounds):
            for store in ("memory", "redis"):
                redis = RedisServer() if store == "redis" else None
                try:
                    extra = ["--redis", redis.url] if redis else []
                    result = measure("http", SERVERS["ours"], flags + extra, timing, load)
                finally:
                    if redis:
                        redis.stop()
                results[key][store].append(result)
                log(f"{title} | round {round_ + 1} | {store}: {result['rps']:,.0f} req/s "
                    f"({result.get('errors')} errors)")
    return results


def measure_instances(args, counts=(1, 2, 3)):
    """HTTP stateless `tools/call add` through HAProxy to 1, 2 and 3 instances of bench-server
    sharing a Redis (examples/deploy/run.sh), nothing pinned: {instances: [results]}."""
    results = {}
    for round_ in range(args.rounds):
        for count in counts:
            env = dict(os.environ, SERVER="bench-server", INSTANCES=str(count), NO_BUILD="1",
                       PROFILE="release", RUST_LOG="error")
            script = subprocess.Popen(["bash", ROOT / "examples/deploy/run.sh"], env=env, cwd=ROOT,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)
            url = None
            for line in script.stderr:
                if line.startswith("MCP endpoint: "):
                    url = line.split(": ", 1)[1].strip()
                    break
            try:
                if url is None:
                    raise RuntimeError("examples/deploy/run.sh did not start")
                time.sleep(0.3)
                result = mcp_bench([url, "--wire", "stateless", "-c", "32",
                                    "--duration", str(args.duration), "--warmup", str(args.warmup)])
            finally:
                script.terminate()
                script.wait()
            results.setdefault(count, []).append(result)
            log(f"{count} instance(s) behind HAProxy | round {round_ + 1}: {result['rps']:,.0f} req/s "
                f"({result.get('errors')} errors)")
    return results


def shared_report(shared, instances, args):
    lines = [f"Measured by `python3 bench/run.py --shared` ({args.rounds} rounds of {args.duration:g} s after "
             f"{args.warmup:g} s of warm-up) on {datetime.date.today():%Y-%m-%d}; {machine()}.", ""]
    add = lines.append
    add("| scenario | in memory | Redis | cost of Redis per request | p50 memory / Redis | p99 memory / Redis |")
    add("|---|---|---|---|---|---|")
    for key, title, *_ in SHARED_SCENARIOS:
        memory, redis = (median(shared[key][s], "rps") for s in ("memory", "redis"))
        cost = "–" if not memory or not redis else f"{(1 / redis - 1 / memory) * 1e6:.0f} µs of the server's core"
        p50 = " / ".join(fmt_us(median(shared[key][s], "p50_us")) for s in ("memory", "redis"))
        p99 = " / ".join(fmt_us(median(shared[key][s], "p99_us")) for s in ("memory", "redis"))
        errors = sum((x.get("errors") or 0) for s in ("memory", "redis") for x in shared[key][s])
        add(f"| {title} | {fmt_rps(memory)} req/s | {fmt_rps(redis)} req/s | {cost} | {p50} | {p99} |"
            + (f" ({errors} errors)" if errors else ""))
    add("")
    add("| instances behind HAProxy (stateless `tools/call add`, 32 connections, Redis shared) | req/s | p50 | p99 |")
    add("|---|---|---|---|")
    for count, runs in sorted(instances.items()):
        add(f"| {count} | {fmt_rps(median(runs, 'rps'))} | {fmt_us(median(runs, 'p50_us'))} "
            f"| {fmt_us(median(runs, 'p99_us'))} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--only", help="comma-separated scenario keys: " + ", ".join(k for k, *_ in SCENARIOS))
    parser.add_argument("--micro", action="store_true", help="also run the criterion micro-benchmarks first")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="report the figures of the last run instead of measuring")
    parser.add_argument("--instructions", action="store_true", help="also count instructions per request with callgrind")
    parser.add_argument("--quick", action="store_true", help="1 round of 2 s")
    parser.add_argument("--output", type=Path, default=OUT)
    parser.add_argument("--shared", action="store_true",
                        help="measure ours with its state in Redis and 1 to 3 instances behind HAProxy; "
                             "print a Markdown report instead of writing BENCHMARKS.md")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.duration, args.warmup = 1, 2.0, 0.5
    if not args.no_build:
        build()
    if args.shared:
        shared = measure_shared(args)
        instances = measure_instances(args)
        print(shared_report(shared, instances, args))
        return
    if args.micro:
        subprocess.run(["cargo", "bench", "-p", "micro"], cwd=BENCH, check=True)
    only = set(args.only.split(",")) if args.only else None
    started = datetime.datetime.now()
    results = {}
    if args.reuse:
        saved = json.loads(SAVED.read_text())
        results = saved["results"]
        args.rounds, args.duration, args.warmup = (saved["run"][k] for k in ("rounds", "duration", "warmup"))
    for key, title, kind, flags, load in SCENARIOS:
        if (only and key not in only) or args.reuse:
            continue
        results[key] = {s: [] for s in SERVERS}
        timing = [] if kind == "sessions" else ["--duration", str(args.duration), "--warmup", str(args.warmup)]
        for round_ in range(args.rounds):
            for name, binary in SERVERS.items():
                result = measure(kind, binary, flags, timing, load)
                results[key][name].append(result)
                what = "memory" if kind == "sessions" else "rps"
                log(f"{title} | round {round_ + 1} | {name}: {figure(result, what)} ({result.get('errors')} errors)")
        # Kept as measured, so that a later failure loses nothing: `--reuse` reports from it.
        run = {"rounds": args.rounds, "duration": args.duration, "warmup": args.warmup}
        SAVED.write_text(json.dumps({"run": run, "results": results}))
    instructions = {}
    if args.reuse and not args.instructions and SAVED_INSTRUCTIONS.exists():
        instructions = json.loads(SAVED_INSTRUCTIONS.read_text())
    if args.instructions:
        for kind in ("http", "stdio"):
            instructions[kind] = {}
            for name, binary in SERVERS.items():
                try:
                    instructions[kind][name] = instructions_per_request(kind, binary)
                except (RuntimeError, AttributeError, KeyError, TypeError) as error:
                    log(f"instructions per request | {kind} | {name}: not counted: {error}")
                    instructions[kind][name] = None
                    continue
                log(f"instructions per request | {kind} | {name}: {instructions[kind][name]:,.0f}")
        SAVED_INSTRUCTIONS.write_text(json.dumps(instructions))
    text = report(results, instructions, args, started)
    kept = kept_section()
    args.output.write_text(text + ("\n" + kept if kept else ""))
    log(f"wrote {args.output}")


if __name__ == "__main__":
    main()
