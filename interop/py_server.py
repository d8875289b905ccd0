"""A server written with the official Python SDK (FastMCP, `mcp` 1.x as interop/requirements.txt
pins it), for the test of the `mcp` command-line tool against other SDKs' servers
(tests/tests/all/cli.rs): a tool with typed output, one that reports progress and logs, a prompt, a
resource and a template.

    .tools/py/bin/python interop/py_server.py stdio
    .tools/py/bin/python interop/py_server.py http   # prints "MCP endpoint: http://127.0.0.1:PORT/mcp" on stderr
"""

import socket
import sys

import anyio
import uvicorn
from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("py-interop-server", instructions="A FastMCP server for the mcp CLI's tests.")


@mcp.tool()
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@mcp.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress and logging each step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n)
        await ctx.info(f"step {i}")
    return f"counted to {n}"


@mcp.resource("test://motd", mime_type="text/plain")
def motd() -> str:
    """The message of the day."""
    return "Hello from Python."


@mcp.resource("test://users/{id}")
def user(id: str) -> str:
    """A user by id."""
    return f"user {id}"


@mcp.prompt()
def greet(who: str) -> str:
    """Greet someone."""
    return f"Say hello to {who}."


async def serve_http():
    # A socket bound to a free port and listening first, so that the endpoint printed is the one
    # served, and a client that connects as soon as it reads the line is queued, not refused.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning")
    server = uvicorn.Server(config)
    print(f"MCP endpoint: http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
    await server.serve(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        mcp.run("stdio")
    elif sys.argv[1:] == ["http"]:
        anyio.run(serve_http)
    else:
        sys.exit("usage: py_server.py stdio | http")
