"""Drives the `notes-server` example with the official Python client 2.x (`mcp` 2.3 on PyPI) in
its default mode, which speaks 2026-07-28 first (`server/discover`, per-request `_meta`, and the
input-required rounds instead of server-to-client requests), and prints what it saw as one JSON
object (the transcript) on stdout. The Rust interop test (tests/tests/all/interop_clients.rs) compares
it with the values it expects.

Usage: python interop/notes_client_2026.py stdio <server command> [args...]
       python interop/notes_client_2026.py http <MCP endpoint URL>

It runs in the virtualenv of interop/requirements-v2.txt (.tools/py2), apart from the 1.x client.
"""

import asyncio
import json
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from transcript import plain


async def failure(awaitable):
    """The JSON-RPC error of a request that must fail."""
    try:
        return {"unexpectedResult": plain(await awaitable)}
    except MCPError as error:
        return plain(error.error)


async def run(mode, target):
    elicitations, samplings, logs, progress = [], [], [], []

    async def on_elicit(context, params):
        elicitations.append(plain(params))
        return types.ElicitResult(action="accept", content={"delete": True})

    async def on_sample(context, params):
        samplings.append(plain(params))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="A note about ideas."),
            model="interop-model",
            stop_reason="endTurn",
        )

    async def on_log(params):
        logs.append(plain(params))

    async def on_progress(done, total, message):
        progress.append(plain({"progress": done, "total": total}))

    server = StdioServerParameters(command=target[0], args=target[1:]) if mode == "stdio" else target[0]
    transcript = {}
    async with Client(
        server,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        logging_callback=on_log,
        log_level="info",
        client_info=types.Implementation(name="interop-py2", version="1.0.0"),
    ) as client:
        transcript["protocolVersion"] = client.protocol_version
        transcript["serverInfo"] = plain(client.server_info)
        transcript["capabilities"] = plain(client.server_capabilities)
        transcript["toolNames"] = [tool.name for tool in (await client.list_tools()).tools]
        transcript["add"] = plain(await client.call_tool("add", {"a": 2, "b": 3}))
        transcript["addInvalid"] = plain(await client.call_tool("add", {"a": "two"}))
        transcript["unknownTool"] = await failure(client.call_tool("nope", {}))
        transcript["wordCount"] = plain(
            await client.call_tool("word_count", {}, progress_callback=on_progress)
        )
        transcript["wordCountProgress"] = progress
        transcript["wordCountLogs"] = logs
        transcript["deleteNote"] = plain(await client.call_tool("delete_note", {"id": 1}))
        transcript["elicitations"] = elicitations
        transcript["summarize"] = plain(await client.call_tool("summarize_note", {"id": 2}))
        transcript["samplings"] = samplings
        transcript["prompt"] = plain(await client.get_prompt("review_note", {"id": "2"}))
        transcript["completeFocus"] = plain(
            await client.complete(
                types.PromptReference(type="ref/prompt", name="review_note"),
                {"name": "focus", "value": "t"},
            )
        )
        transcript["readNote"] = plain(await client.read_resource("notes://2"))
        transcript["readMissing"] = await failure(client.read_resource("notes://99"))
    print(json.dumps(transcript))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: python notes_client_2026.py stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
