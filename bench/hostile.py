#!/usr/bin/env python3
"""Hostile clients against a release conformance-server, on 127.0.0.1: each attack of issues 16
and 32 (never-read GET and listen streams, a stdio client that never reads, half-sent headers,
stalled bodies, a session flood, sessions full of unanswered elicitations, a bind on every
address), and `together`, the memory attacks at once; bounded in count and time. Prints what the
server's memory did and whether a legitimate client was served throughout.

    cargo build --release -p examples --bin conformance-server
    bench/hostile.py [target/release/conformance-server] [ATTACK...]
"""

import asyncio
import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target/release/conformance-server"
HEADER_TIMEOUT = 30  # the server's default header and body timeouts, in seconds


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Server:
    def __init__(self, binary, address="127.0.0.1:0"):
        self.process = subprocess.Popen([str(binary), "http", address], stderr=subprocess.PIPE, text=True)
        line = self.process.stderr.readline()
        if not line.startswith("MCP endpoint: "):
            self.process.wait(10)
            raise RuntimeError(line + self.process.stderr.read())
        url = line.split(": ", 1)[1].strip()
        self.host, port = url.split("//")[1].split("/")[0].split(":")
        self.port = int(port)

    def rss(self):
        return rss_mib(self.process.pid)

    def stop(self):
        self.process.kill()
        self.process.wait()


async def request(server, method, headers, body=b"", read=True, timeout=10):
    """One HTTP/1.1 exchange on its own connection: (status, headers, body)."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    head = f"{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    writer.write(head.encode() + b"\r\n" + body)
    await writer.drain()
    if not read:
        return reader, writer
    data = await asyncio.wait_for(reader.read(), timeout)
    writer.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    fields = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
    return int(lines[0].split()[1]), {k.lower(): v for k, v in fields.items()}, rest


ACCEPT = {"Accept": "application/json, text/event-stream"}


def message(id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return json.dumps(m).encode()


async def open_session(server):
    init = message(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "hostile", "version": "1"}})
    while True:
        status, headers, _ = await request(server, "POST", ACCEPT, init)
        if status != 503:
            break
        await asyncio.sleep(int(headers.get("retry-after", "1")))
    assert status == 200, status
    session = headers["mcp-session-id"]
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    status, _, _ = await request(server, "POST", {**ACCEPT, "Mcp-Session-Id": session}, note)
    assert status == 202, status
    return session


async def call(server, session, name, id=1):
    body = message(id, "tools/call", {"name": name, "arguments": {}})
    return await request(server, "POST", {**ACCEPT, "Mcp-Session-Id": session,
                                          "MCP-Protocol-Version": "2025-11-25"}, body)


async def legit(server):
    """A new session and a tool call; the seconds they took."""
    start = time.monotonic()
    session = await open_session(server)
    status, _, body = await call(server, session, "test_simple_text")
    assert status == 200 and b"This is a simple text response" in body, (status, body[:200])
    return time.monotonic() - start


async def sampled(server, work, label):
    """Runs `work`, sampling RSS and a legitimate client every half second."""
    before = server.rss()
    peak, served, failed, worst = before, 0, 0, 0.0
    task = asyncio.ensure_future(work)
    while not task.done():
        await asyncio.sleep(0.5)
        peak = max(peak, server.rss())
        try:
            worst = max(worst, await legit(server))
            served += 1
        except Exception as error:  # refused under load: counted, not fatal
            failed += 1
            last_failure = error
    result = task.result()
    print(f"{label}: RSS {before:.1f} MiB before, {peak:.1f} peak (+{peak - before:.1f}), "
          f"{server.rss():.1f} after; a legitimate client served {served} times "
          f"(slowest {worst:.2f} s), refused {failed} times; {result}")
    if failed:
        print(f"  the last refusal: {last_failure!r}"[:300])


def quiet_socket(server):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((server.host, server.port))
    s.setblocking(False)
    return s


async def triggers(server, count):
    """`count` broadcasts, each triggered by a tool call (told to retry when the server is full)."""
    session = await open_session(server)
    refused = 0
    for n in range(count):
        while True:
            status, headers, body = await call(server, session, "test_trigger_tool_change", n)
            if status != 503:
                break
            refused += 1
            await asyncio.sleep(int(headers.get("retry-after", "1")))
        assert status == 200, status
    return f"{count} broadcasts ({refused} triggers told to retry)"


async def get_streams(server, streams=100, broadcasts=10_000):
    sockets = []
    for _ in range(streams):
        session = await open_session(server)
        s = quiet_socket(server)
        s.send(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
               f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n".encode())
        sockets.append(s)
    result = await triggers(server, broadcasts)
    closed = sum(1 for s in sockets if peer_closed(s))
    for s in sockets:
        s.close()
    return f"{result} to {streams} never-read GET streams, {closed} of which the server closed"


def peer_closed(s):
    try:
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


async def listen_streams(server, streams=200, broadcasts=10_000):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    body = message(1, "subscriptions/listen", {"filter": {"toolsListChanged": True}, "_meta": meta})
    sockets = []
    for _ in range(streams):
        s = quiet_socket(server)
        s.send((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n"
                f"Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                f"Mcp-Method: subscriptions/listen\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
        sockets.append(s)
    result = await triggers(server, broadcasts)
    for s in sockets:
        s.close()
    return f"{result} to {streams} never-read listen streams"


async def half_headers(server, connections=3000):
    sockets = []
    for _ in range(connections):
        s = socket.socket()
        s.connect((server.host, server.port))
        s.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        sockets.append(s)
    await asyncio.sleep(HEADER_TIMEOUT + 5)
    closed = sum(1 for s in sockets if peer_closed(s))
    for s in sockets:
        s.close()
    return f"{closed} of {connections} half-sent headers closed by the server"


async def stalled_bodies(server, bodies=50, size=4_000_000):
    streams = []
    for _ in range(bodies):
        reader, writer = await request(server, "POST", {**ACCEPT, "Content-Type": "application/json",
                                                        "Content-Length": str(size)}, read=False)
        writer.write(b"{" + b" " * (size - 4096))
        streams.append((reader, writer))
    await asyncio.gather(*(w.drain() for _, w in streams), return_exceptions=True)

    async def answer(reader):
        try:
            return await asyncio.wait_for(reader.read(), HEADER_TIMEOUT + 10)
        except (ConnectionError, asyncio.TimeoutError):
            return b"(reset)"

    answers = await asyncio.gather(*(answer(r) for r, _ in streams))
    for _, writer in streams:
        writer.close()
    statuses = {}
    for a in answers:
        status = a.split(b"\r\n", 1)[0].decode(errors="replace")
        statuses[status] = statuses.get(status, 0) + 1
    return f"{bodies} bodies stalled near {size // 1_000_000} MB: " + ", ".join(
        f"{n} {status}" for status, n in sorted(statuses.items()))


async def session_flood(server, sessions=12_000):
    opened = 0
    init = message(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "flood", "version": "1"}})
    for _ in range(sessions // 50):
        answers = await asyncio.gather(*(request(server, "POST", ACCEPT, init) for _ in range(50)))
        opened += sum(1 for status, _, _ in answers if status == 200)
    return f"{opened} of {sessions} initializes answered 200"


async def elicitations(server, sessions=200, per_session=1024, parallel=64):
    """Sessions that each start `per_session` calls of a tool that asks the client a question,
    and never answer: each call's connection is reset once the question (or the answer) came."""
    init = message(0, "initialize", {"protocolVersion": "2025-11-25",
                                     "capabilities": {"elicitation": {"form": {}}},
                                     "clientInfo": {"name": "hostile", "version": "1"}})
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    outcomes = {"asked": 0, "refused": 0, "other": 0}
    gate = asyncio.Semaphore(parallel)

    async def one(session, id):
        body = message(id, "tools/call", {"name": "test_elicitation", "arguments": {"message": "?"}})
        async with gate:
            reader, writer = await request(server, "POST", {**ACCEPT, "Mcp-Session-Id": session,
                                                            "MCP-Protocol-Version": "2025-11-25"},
                                           body, read=False)
            seen = b""
            try:
                while b'"method":"elicitation/create"' not in seen and b'"result"' not in seen:
                    chunk = await asyncio.wait_for(reader.read(65536), 10)
                    if not chunk:
                        break
                    seen += chunk
            except asyncio.TimeoutError:
                pass
            if b'"method":"elicitation/create"' in seen:
                outcomes["asked"] += 1
            elif b"retry" in seen or b"try again" in seen:
                outcomes["refused"] += 1
            else:
                outcomes["other"] += 1
            # A reset, so that no socket lingers in TIME_WAIT.
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.close()

    unopened = 0
    for _ in range(sessions):
        status, headers, _ = await request(server, "POST", ACCEPT, init)
        if status == 503:  # the memory budget is full: told to come back
            unopened += 1
            continue
        assert status == 200, status
        session = headers["mcp-session-id"]
        await request(server, "POST", {**ACCEPT, "Mcp-Session-Id": session}, note)
        await asyncio.gather(*(one(session, id) for id in range(1, per_session + 1)))
    return (f"{sessions} sessions x {per_session} calls left unanswered ({unopened} sessions refused "
            f"503): {outcomes['asked']} asked the client, {outcomes['refused']} refused (busy), "
            f"{outcomes['other']} other")


async def together(server):
    """The attacks of issue 32 at once, against one server."""
    results = await asyncio.gather(get_streams(server), listen_streams(server), stalled_bodies(server),
                                   elicitations(server))
    return "; ".join(results)


def stdio(binary, lines=200_000):
    process = subprocess.Popen([str(binary), "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    init = message(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                     "clientInfo": {"name": "hostile", "version": "1"}})
    process.stdin.write(init + b"\n" + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
    process.stdin.flush()
    time.sleep(0.5)
    before = rss_mib(process.pid)
    sent = 0
    deadline = time.monotonic() + 10
    import fcntl, os
    fd = process.stdin.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    while sent < lines and time.monotonic() < deadline:
        try:
            os.write(fd, message(sent + 1, "ping") + b"\n")
            sent += 1
        except BlockingIOError:
            time.sleep(0.01)
    time.sleep(1)
    print(f"a stdio client that never reads: {sent} of {lines} pings written in 10 s; "
          f"RSS {before:.1f} MiB before, {rss_mib(process.pid):.1f} after")
    process.kill()
    process.wait()


def every_address(binary):
    process = subprocess.run([str(binary), "http", "0.0.0.0:0"], capture_output=True, text=True, timeout=20,
                             env={"PATH": "/usr/bin:/bin"})
    error = next((l for l in process.stderr.splitlines() if l.startswith("Error")), process.stderr.strip())
    print(f"a bind on 0.0.0.0 with the default options: exit {process.returncode}: {error}")


ATTACKS = {
    "get": get_streams,
    "listen": listen_streams,
    "headers": half_headers,
    "bodies": stalled_bodies,
    "sessions": session_flood,
    "elicitations": elicitations,
    "together": together,
}


async def main():
    args = sys.argv[1:]
    binary = Path(args.pop(0)) if args and "/" in args[0] else BINARY
    chosen = args or [*ATTACKS, "stdio", "address"]
    for name in chosen:
        if name == "stdio":
            stdio(binary)
        elif name == "address":
            every_address(binary)
        else:
            server = Server(binary)
            try:
                await sampled(server, ATTACKS[name](server), name)
            finally:
                server.stop()


if __name__ == "__main__":
    asyncio.run(main())
