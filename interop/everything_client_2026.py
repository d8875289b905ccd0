"""Drives `mcp proxy` in front of the official `server-everything` (a 2025-only TypeScript
server) with the official Python client 2.x, which speaks 2026-07-28: the proxy keeps the
upstream session, and what the server asks mid-call comes back as input-required rounds.
Prints what it saw as one JSON object; the Rust test (tests/tests/all/proxy_cli.rs) checks it.

Usage: python interop/everything_client_2026.py stdio <command> [args...] | http <url>

It runs in the virtualenv of interop/requirements-v2.txt (.tools/py2).
"""

import asyncio
import json
import re
import sys

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from transcript import plain


def texts(result):
    return [c.text for c in result.content if c.type == "text"]


async def run(mode, target):
    progress = []

    async def on_elicit(context, params):
        return types.ElicitResult(
            action="accept", content={"name": "Ada Lovelace", "check": True, "integer": 7}
        )

    async def on_sample(context, params):
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"echo: {params.messages[0].content.text}"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def on_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///work/project", name="project")])

    async def on_progress(done, total, message):
        progress.append([done, total])

    server = StdioServerParameters(command=target[0], args=target[1:]) if mode == "stdio" else target[0]
    t = {}
    async with Client(
        server,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        list_roots_callback=on_roots,
        client_info=types.Implementation(name="interop-py2", version="1.0.0"),
    ) as client:
        t["protocolVersion"] = client.protocol_version
        t["serverInfo"] = plain(client.server_info)
        t["tools"] = sorted(tool.name for tool in (await client.list_tools()).tools)
        t["echo"] = texts(await client.call_tool("echo", {"message": "hello"}))
        t["sum"] = texts(await client.call_tool("get-sum", {"a": 2, "b": 3}))
        structured = await client.call_tool("get-structured-content", {"location": "New York"})
        t["structured"] = plain(structured.structured_content)
        long = await client.call_tool(
            "trigger-long-running-operation",
            {"duration": 0.3, "steps": 3},
            progress_callback=on_progress,
        )
        t["long"] = texts(long)
        t["progress"] = progress
        t["sampling"] = texts(
            await client.call_tool("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 10})
        )
        t["elicitation"] = texts(await client.call_tool("trigger-elicitation-request", {}))
        t["roots"] = texts(await client.call_tool("get-roots-list", {}))
        resources = (await client.list_resources()).resources
        t["resources"] = [[str(r.uri), r.name, r.mime_type] for r in resources[:3]]
        dynamic = await client.read_resource("demo://resource/dynamic/text/1")
        t["dynamic"] = [
            [str(c.uri), re.sub(r"at [0-9:]+ [AP]M$", "at TIME", c.text)] for c in dynamic.contents
        ]
        prompt = await client.get_prompt("args-prompt", {"city": "Paris", "state": "Texas"})
        t["argsPrompt"] = [plain(m) for m in prompt.messages]
        completed = await client.complete(
            types.PromptReference(type="ref/prompt", name="completable-prompt"),
            {"name": "department", "value": "E"},
        )
        t["completion"] = completed.completion.values
    print(json.dumps(t))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: python everything_client_2026.py stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
