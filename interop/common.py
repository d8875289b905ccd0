"""What the interop clients share: a connection through the official Python client, the JSON of
what it received, and the error of a request that must fail."""

import asyncio
import contextlib
import sys

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError


def plain(value):
    """A pydantic model (or a structure of them) as the JSON the server sent: only the fields
    that were set, by their wire names, with integral floats as integers (as JavaScript has
    them)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


async def failure(awaitable):
    """The JSON-RPC error of a request that must fail."""
    try:
        result = await awaitable
        return {"unexpectedResult": plain(result)}
    except McpError as error:
        return {"code": error.error.code, "message": error.error.message}


@contextlib.asynccontextmanager
async def connect(mode, target):
    """The read and write streams of a connection to the server: a process started with the
    command `target` (stdio), or the endpoint at the URL `target[0]` (Streamable HTTP)."""
    if mode == "stdio":
        server = StdioServerParameters(command=target[0], args=target[1:])
        async with stdio_client(server) as (read, write):
            yield read, write
    else:
        async with streamable_http_client(target[0]) as (read, write, _session_id):
            yield read, write


def main(script, run):
    """Runs `run(mode, target)` with the command line `stdio <command> [args...]` or `http <url>`."""
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print(f"usage: python {script} stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
