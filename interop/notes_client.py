"""Drives the `notes-server` example with the official Python client (`mcp` on PyPI) and prints
what it saw as one JSON object (the transcript) on stdout. The Rust interop test
(tests/tests/interop_clients.rs) compares the transcript with the values it expects.

Usage: python interop/notes_client.py stdio <server command> [args...]
       python interop/notes_client.py http <MCP endpoint URL>

The scenario is the same as interop/notes_client.mjs's, step for step, so that both clients must
produce the same transcript.
"""

import asyncio
import contextlib
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
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


async def run(mode, target):
    elicitations, samplings, logs, transport_errors = [], [], [], []

    async def on_elicit(context, params):
        elicitations.append(plain(params))
        return types.ElicitResult(action="accept", content={"delete": True})

    async def on_sample(context, params):
        samplings.append(plain(params))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="A note about ideas."),
            model="interop-model",
            stopReason="endTurn",
        )

    async def on_log(params):
        logs.append(plain(params))

    async def on_message(message):
        if isinstance(message, Exception):
            transport_errors.append(str(message))

    def take_logs():
        taken = list(logs)
        logs.clear()
        return taken

    transcript = {}
    async with connect(mode, target) as (read, write):
        async with ClientSession(
            read,
            write,
            sampling_callback=on_sample,
            elicitation_callback=on_elicit,
            logging_callback=on_log,
            message_handler=on_message,
            client_info=types.Implementation(name="interop-py", version="1.0.0"),
        ) as session:
            transcript["initialize"] = plain(await session.initialize())
            transcript["ping"] = plain(await session.send_ping())
            transcript["tools"] = plain((await session.list_tools()).tools)
            transcript["add"] = plain(await session.call_tool("add", {"a": 2, "b": 3}))
            transcript["addDefault"] = plain(await session.call_tool("add", {"a": 7}))
            transcript["addInvalid"] = plain(await session.call_tool("add", {"a": "two"}))
            transcript["unknownTool"] = await failure(session.call_tool("nope", {}))
            transcript["addNote"] = plain(
                await session.call_tool(
                    "add_note",
                    {"title": "Rust", "body": "Ownership and borrowing.", "tags": ["rust", "lang"]},
                )
            )
            transcript["search"] = plain(await session.call_tool("search_notes", {"text": "rust"}))

            progress = []

            async def on_progress(done, total, message):
                entry = {"progress": done, "total": total}
                if message is not None:
                    entry["message"] = message
                progress.append(plain(entry))

            transcript["wordCount"] = plain(
                await session.call_tool("word_count", {}, progress_callback=on_progress)
            )
            transcript["wordCountProgress"] = progress
            transcript["wordCountLogs"] = take_logs()

            transcript["setLevel"] = plain(await session.set_logging_level("warning"))
            await session.call_tool("word_count", {})
            transcript["logsAfterSetLevel"] = take_logs()

            transcript["deleteNote"] = plain(await session.call_tool("delete_note", {"id": 1}))
            transcript["elicitations"] = elicitations
            transcript["summarize"] = plain(await session.call_tool("summarize_note", {"id": 2}))
            transcript["samplings"] = samplings

            transcript["prompts"] = plain((await session.list_prompts()).prompts)
            transcript["prompt"] = plain(
                await session.get_prompt("review_note", {"id": "2", "focus": "tone"})
            )
            transcript["promptBadArgument"] = await failure(
                session.get_prompt("review_note", {"id": "two"})
            )
            transcript["completeFocus"] = plain(
                await session.complete(
                    types.PromptReference(type="ref/prompt", name="review_note"),
                    {"name": "focus", "value": "t"},
                )
            )
            transcript["completeNoteId"] = plain(
                await session.complete(
                    types.ResourceTemplateReference(type="ref/resource", uri="notes://{id}"),
                    {"name": "id", "value": ""},
                )
            )

            transcript["resources"] = plain((await session.list_resources()).resources)
            transcript["templates"] = plain(
                (await session.list_resource_templates()).resourceTemplates
            )
            transcript["readNote"] = plain(await session.read_resource("notes://3"))
            transcript["readMissing"] = await failure(session.read_resource("notes://99"))
            transcript["transportErrors"] = transport_errors
    print(json.dumps(transcript))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print(
            "usage: python notes_client.py stdio <command> [args...] | http <url>", file=sys.stderr
        )
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
