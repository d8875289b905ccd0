"""Runs the conformance server's `test_input_required_result_multi_round` twice in a row with the
official Python client 2.x (`mcp` 2.3 on PyPI), as a user of it would: first by hand
(`client.session.call_tool(..., allow_input_required=True)`, answering each round and retrying with
its `requestState`), then through the client's automatic driver (`client.call_tool`). Both calls
start within the same second, with the same arguments and the same answers, so the server seals
the same data for the same request twice: each call must still complete. It prints what it saw as
one JSON object (the transcript) on stdout, which the Rust interop test
(tests/tests/all/interop_clients.rs) compares with the values it expects.

Usage: python interop/multi_round_2026.py stdio <server command> [args...]
       python interop/multi_round_2026.py http <MCP endpoint URL>

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

TOOL = "test_input_required_result_multi_round"

# The user's answers, by the property the form asks for.
ANSWERS = {"name": {"name": "Jane Smith"}, "color": {"color": "teal"}}


def answer(params):
    """The user's answer to the form `params` asks them to fill."""
    field = next(iter(params.requested_schema["properties"]))
    return types.ElicitResult(action="accept", content=ANSWERS[field])


async def outcome(awaitable):
    """The result of a call, or the JSON-RPC error it failed with."""
    try:
        return plain(await awaitable)
    except MCPError as error:
        return {"error": plain(error.error)}


async def by_hand(client, rounds):
    """Drives the rounds of one call itself, noting in `rounds` what each asked; the result."""
    responses, state = None, None
    while True:
        result = await client.session.call_tool(
            TOOL, {}, input_responses=responses, request_state=state, allow_input_required=True
        )
        if not isinstance(result, types.InputRequiredResult):
            return result
        rounds.append(
            {
                "asked": {key: plain(request) for key, request in result.input_requests.items()},
                "carriesState": isinstance(result.request_state, str) and len(result.request_state) > 0,
            }
        )
        responses = {key: answer(request.params) for key, request in result.input_requests.items()}
        state = result.request_state


async def run(mode, target):
    asked = []

    async def on_elicit(context, params):
        asked.append(next(iter(params.requested_schema["properties"])))
        return answer(params)

    server = StdioServerParameters(command=target[0], args=target[1:]) if mode == "stdio" else target[0]
    transcript = {}
    async with Client(
        server,
        elicitation_callback=on_elicit,
        client_info=types.Implementation(name="interop-py2-rounds", version="1.0.0"),
    ) as client:
        transcript["protocolVersion"] = client.protocol_version
        rounds = []
        transcript["byHand"] = await outcome(by_hand(client, rounds))
        transcript["byHandRounds"] = rounds
        transcript["automatic"] = await outcome(client.call_tool(TOOL, {}))
        transcript["automaticAsked"] = asked
    print(json.dumps(transcript))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: python multi_round_2026.py stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2:]))
