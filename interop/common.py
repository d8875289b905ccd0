"""What the interop clients share: a connection through the official Python client, the JSON of
what it received, and the error of a request that must fail."""

import asyncio
import contextlib
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from transcript import plain


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


def progress_recorder():
    """A list, and a progress callback that appends what it is called with to the list."""
    progress = []

    async def on_progress(done, total, message):
        entry = {"progress": done, "total": total}
        if message is not None:
            entry["message"] = message
        progress.append(plain(entry))

    return progress, on_progress


class Recorder:
    """The callbacks of a client session, recording what the server sent: its elicitation and
    sampling requests (answered with `answer_form(params)` and a text from `model`), log messages,
    resource updates and the transport's errors."""

    def __init__(self, answer_form, model, sampled_text):
        self.answer_form, self.model, self.sampled_text = answer_form, model, sampled_text
        self.elicitations, self.samplings, self.logs = [], [], []
        self.updates, self.transport_errors = [], []

    async def on_elicit(self, context, params):
        self.elicitations.append(plain(params))
        return types.ElicitResult(action="accept", content=self.answer_form(params))

    async def on_sample(self, context, params):
        self.samplings.append(plain(params))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=self.sampled_text),
            model=self.model,
            stopReason="endTurn",
        )

    async def on_log(self, params):
        self.logs.append(plain(params))

    async def on_message(self, message):
        if isinstance(message, Exception):
            self.transport_errors.append(str(message))
        elif isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ResourceUpdatedNotification
        ):
            self.updates.append(plain(message.root.params))

    def take_logs(self):
        """The log messages received since the last call."""
        taken = list(self.logs)
        self.logs.clear()
        return taken

    def session(self, read, write):
        """A client session over `read` and `write` with these callbacks."""
        return ClientSession(
            read,
            write,
            sampling_callback=self.on_sample,
            elicitation_callback=self.on_elicit,
            logging_callback=self.on_log,
            message_handler=self.on_message,
            client_info=types.Implementation(name="interop-py", version="1.0.0"),
        )


def main(script, run):
    """Runs `run(mode, target)` with the command line `stdio <command> [args...]` or `http <url>`."""
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print(f"usage: python {script} stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
