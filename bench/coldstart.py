#!/usr/bin/env python3
"""Cold start: the time from starting a stdio server to its answer to `initialize`, the first
line it writes. Each run starts a fresh process (pinned to the server's core when there are two),
writes `initialize` at once, reads one line and stops the process; the figures are the median and
the fastest of RUNS runs, alternating the servers, and the median count of the page faults the
process took until it answered: most of a start's time on a VM goes to them (the loader's writes
to relocated data, the code and heap first touched). The count includes the few the process took
before it became the server (the fork, `taskset`), the same for every server.

    python3 bench/coldstart.py                       # ours (bench-server and start-server), rmcp, bare
                                                     # (bench/run.py builds them)
    python3 bench/coldstart.py BINARY [BINARY...]     # any stdio servers (run as `BINARY stdio`)
"""

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (bench/run.py: the servers and the core to pin them to)

RUNS = 200
INITIALIZE = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
              b'"2025-11-25","capabilities":{},"clientInfo":{"name":"coldstart","version":"1"}}}\n')


def page_faults(pid):
    """The minor page faults process `pid` has taken so far (`/proc/PID/stat`'s tenth field)."""
    with open(f"/proc/{pid}/stat") as stat:
        # The name, in parentheses, may hold spaces: fields are counted after it.
        return int(stat.read().rsplit(")", 1)[1].split()[7])


def once(binary):
    """Seconds from spawning `binary stdio` to the first line it writes, and the page faults the
    process took until then."""
    started = time.perf_counter()
    process = subprocess.Popen(run.pinned(run.SERVER_CPU, [binary, "stdio"]), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdin.write(INITIALIZE)
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    if b'"result"' not in line:
        raise RuntimeError(f"{binary} answered initialize with {line[:200]!r}")
    faults = page_faults(process.pid)
    process.stdin.close()
    process.kill()
    process.wait()
    return elapsed, faults


def main():
    binaries = sys.argv[1:] or [str(path) for path in [*run.SERVERS.values(), run.START_SERVER]]
    times = {binary: [] for binary in binaries}
    for _ in range(RUNS):
        for binary in binaries:
            times[binary].append(once(binary))
    for binary, runs in times.items():
        seconds = [elapsed for elapsed, _ in runs]
        faults = statistics.median(faults for _, faults in runs)
        print(f"{os.path.relpath(binary)}: median {statistics.median(seconds) * 1e3:.2f} ms, "
              f"fastest {min(seconds) * 1e3:.2f} ms, {faults:.0f} page faults ({RUNS} runs)")


if __name__ == "__main__":
    main()
