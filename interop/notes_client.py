"""Drives the `notes-server` example with the official Python client (`mcp` on PyPI) and prints
what it saw as one JSON object (the transcript) on stdout. The Rust interop test
(tests/tests/all/interop_clients.rs) compares the transcript with the values it expects.

Usage: python interop/notes_client.py stdio <server command> [args...]
       python interop/notes_client.py http <MCP endpoint URL>

The scenario is the same as interop/notes_client.mjs's, step for step, so that both clients must
produce the same transcript.
"""

import json

from mcp import types

from common import Recorder, connect, failure, main, plain, progress_recorder


async def run(mode, target):
    recorder = Recorder(lambda params: {"delete": True}, "interop-model", "A note about ideas.")
    transcript = {}
    async with connect(mode, target) as (read, write):
        async with recorder.session(read, write) as session:
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

            progress, on_progress = progress_recorder()
            transcript["wordCount"] = plain(
                await session.call_tool("word_count", {}, progress_callback=on_progress)
            )
            transcript["wordCountProgress"] = progress
            transcript["wordCountLogs"] = recorder.take_logs()

            transcript["setLevel"] = plain(await session.set_logging_level("warning"))
            await session.call_tool("word_count", {})
            transcript["logsAfterSetLevel"] = recorder.take_logs()

            transcript["deleteNote"] = plain(await session.call_tool("delete_note", {"id": 1}))
            transcript["elicitations"] = recorder.elicitations
            transcript["summarize"] = plain(await session.call_tool("summarize_note", {"id": 2}))
            transcript["samplings"] = recorder.samplings

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
            transcript["transportErrors"] = recorder.transport_errors
    print(json.dumps(transcript))


if __name__ == "__main__":
    main("notes_client.py", run)
