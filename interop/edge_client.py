"""Drives a serverless example (examples/serverless: the Cloudflare Worker in workerd, the AWS
Lambda function in cargo-lambda's emulator) with the official Python client 2.x (`mcp` 2.3, which
speaks 2026-07-28) and prints what it saw as one JSON object (the transcript) on stdout. The Rust
test (tests/tests/all/serverless.rs) compares it with tests/expected/edge-transcript.json; the
TypeScript client v2 plays the same scenario (interop/edge_client.mjs) and must see the same.

Usage: python interop/edge_client.py <MCP endpoint URL> [bearer token]

It runs in the virtualenv of interop/requirements-v2.txt (.tools/py2).
"""

import asyncio
import json
import sys

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from transcript import plain


async def run(url, token):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers) as http:
        async with Client(
            streamable_http_client(url, http_client=http),
            elicitation_callback=on_elicit,
            client_info=types.Implementation(name="interop-py2-edge", version="1.0.0"),
        ) as client:
            transcript = {}
            transcript["protocolVersion"] = client.protocol_version
            transcript["serverInfo"] = plain(client.server_info)
            tools = (await client.list_tools()).tools
            transcript["tools"] = sorted(tool.name for tool in tools)
            (forecast_tool,) = [tool for tool in tools if tool.name == "forecast"]
            transcript["forecastOutputSchema"] = plain(forecast_tool.output_schema)
            forecast = await client.call_tool("forecast", {"city": "Oslo"})
            transcript["forecast"] = {
                "structuredContent": plain(forecast.structured_content),
                "isError": bool(forecast.is_error),
            }
            greeting = await client.call_tool("greet", {})
            transcript["greet"] = [block.text for block in greeting.content]
            transcript["greetAsked"] = asked
            about = await client.read_resource("edge://about")
            transcript["about"] = [
                {"uri": str(c.uri), "mimeType": c.mime_type, "text": c.text} for c in about.contents
            ]
            haiku = await client.get_prompt("haiku", {"topic": "the sea"})
            transcript["haiku"] = [{"role": m.role, "text": m.content.text} for m in haiku.messages]
            whoami = await client.call_tool("whoami", {})
            transcript["whoami"] = [block.text for block in whoami.content]
    print(json.dumps(transcript))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print("usage: python edge_client.py <MCP endpoint URL> [bearer token]", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None))
