#!/usr/bin/env python3
"""The instruction-count gate: what each measured request costs, in instructions (valgrind's
callgrind counts them: the same for the same binary whatever else the machine does), against
the committed baseline `bench/instructions.json`. A case that costs more than the tolerance
above its baseline fails the run, saying which and how to accept the new figure on purpose.

    scripts/gate.sh              # build what it measures (release), then check the baseline
    scripts/gate.sh --update     # write the measured figures as the new baseline

(`python3 bench/gate.py [--update]` alone measures what is already built.) The cases: the
in-process ones of bench/micro's `profile`, and `bench-server` under `mcp bench` over stdio and
HTTP (bench/marginal.py's paths), two of them with the server's state in a redis-server of the
gate's own (scripts/install-redis.sh). Only the server's instructions count, not Redis's.

Each case runs twice, SHORT and LONG requests; the difference of the totals over the difference
of the requests is the cost of one request at the margin (start-up and warm-up cancel out).
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marginal as served  # noqa: E402  (bench/marginal.py: a server's marginal instructions)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Built by scripts/gate.sh into the main workspace's target folder (see there why).
PROFILE = os.environ.get(
    "GATE_PROFILE", os.path.join(ROOT, "target", "release", "profile"))
BASELINE = os.path.join(ROOT, "bench", "instructions.json")
TOLERANCE = 0.03
SHORT, LONG = 2_000, 12_000

# The in-process cases of bench/micro/src/bin/profile.rs, and how many requests each run makes
# (a list of 100 tools costs a hundred calls: fewer of them).
CASES = {
    "tools/call add, 2025-11-25 session, in process": (["call"], 1),
    "tools/call add, 2026-07-28, in process": (["call-stateless"], 1),
    "tools/list of 100 tools, in process": (["list"], 10),
    "a task (tools/call as a task, then tasks/result), in memory, in process": (["task"], 4),
}


# The cases of `bench-server` under `mcp bench` (bench/marginal.py's paths), when both are built
# (`cargo build --release -p examples --bin bench-server -p mcp-runtime-cli --bin mcp`).
SERVER = os.environ.get(
    "GATE_SERVER", os.path.join(ROOT, "target", "release", "bench-server"))
SERVER_CASES = {
    "tools/call add, 2026-07-28 over HTTP": "http-stateless",
    "tools/call add, 2025-11-25 session over HTTP": "http-session",
    "tools/call add, 2025-11-25 over stdio": "stdio",
    "tools/call add, 2025-11-25 session in Redis, over HTTP": "http-session-redis",
    "a task (2026-07-28 tools/call of add_task), in memory, over HTTP": "http-task",
    "a task (2026-07-28 tools/call of add_task), in Redis, over HTTP": "http-task-redis",
}


def instructions(args, requests):
    """callgrind's total instructions of `profile ARGS REQUESTS`."""
    with tempfile.NamedTemporaryFile(prefix="callgrind-", delete=False) as out:
        path = out.name
    try:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={path}",
             PROFILE, *args, str(requests)],
            check=True, capture_output=True,
        )
        summary = subprocess.run(
            ["callgrind_annotate", path], check=True, capture_output=True, text=True,
        ).stdout
    finally:
        os.unlink(path)
    for line in summary.splitlines():
        if "PROGRAM TOTALS" in line:
            return int(line.split()[0].replace(",", ""))
    raise RuntimeError(f"callgrind_annotate printed no total for {args}")


def marginal(args, divisor):
    """Instructions of one request of the case, at the margin: the median of three processes,
    whose hash seeds and random ids differ (one process's figure varies by up to 2% from the
    next on the 2026-07-28 path)."""
    short, long = SHORT // divisor, LONG // divisor
    runs = sorted(
        (instructions(args, long) - instructions(args, short)) // (long - short)
        for _ in range(3)
    )
    return runs[1]


def main():
    update = "--update" in sys.argv[1:]
    if not os.path.exists(PROFILE):
        sys.exit(f"gate: build the profile first: scripts/gate.sh does ({PROFILE} is missing)")
    measured = {name: marginal(args, divisor) for name, (args, divisor) in CASES.items()}
    if os.path.exists(SERVER) and os.path.exists(served.run.MCP):
        for name, path in SERVER_CASES.items():
            measured[name] = round(served.marginal(path, SERVER))
    else:
        print(f"gate: {os.path.relpath(SERVER, ROOT)} or {served.run.MCP} is not built: "
              "the stdio and HTTP cases are left out", file=sys.stderr)
    if update:
        with open(BASELINE, "w") as f:
            json.dump(measured, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"gate: wrote {len(measured)} figures to {os.path.relpath(BASELINE, ROOT)}")
        return
    with open(BASELINE) as f:
        baseline = json.load(f)
    failed = []
    for name, figure in measured.items():
        base = baseline.get(name)
        if base is None:
            failed.append(f"{name}: {figure} instructions, a case the baseline lacks")
            continue
        change = (figure - base) / base
        print(f"gate: {name}: {figure} instructions ({change:+.1%} against {base})")
        if change > TOLERANCE:
            failed.append(f"{name}: {figure} instructions, {change:+.1%} against {base}")
        elif change < -TOLERANCE:
            print(f"gate: {name} costs less than its baseline: scripts/gate.sh --update keeps "
                  "the gain from going unseen", file=sys.stderr)
    if failed:
        print("gate: these requests cost more than the baseline allows "
              f"(+{TOLERANCE:.0%}), or have none:", file=sys.stderr)
        for line in failed:
            print(f"  {line}", file=sys.stderr)
        print("If the cost is meant (a feature on the path, said in BENCHMARKS.md), accept it: "
              "scripts/gate.sh --update, and commit bench/instructions.json.",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
