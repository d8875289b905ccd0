"""Calls one tool of an MCP server with the official Python client 2.x (`mcp` 2.3 on PyPI) under
OpenTelemetry, exporting its spans over OTLP/HTTP to the collector that OTEL_EXPORTER_OTLP_ENDPOINT
(or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names: a trace of a root span of its own, named `agent`,
around the whole session, under which the client opens one span per request it sends (`MCP send
tools/call add`, with `mcp.method.name` and `jsonrpc.request.id`) and injects that span's context
(`traceparent`) into the request's `params._meta`. It prints one JSON line on stdout:
{"traceId": 32 hex digits, "rootSpanId": 16 hex digits, "protocolVersion": ..., "result": the
CallToolResult as the server sent it}, and exits only once every span is exported (with status 1 if
an export failed). The Rust tests (tests/tests/all/otel_phoenix.rs) then read the trace back from
Arize Phoenix.

The server it starts over stdio inherits its environment; it accepts every elicitation, answering
yes to each yes-or-no field.

Usage: python interop/otel_client.py [--service NAME] [--mode MODE] TOOL ARGUMENTS_JSON stdio <server command> [args...]
       python interop/otel_client.py [--service NAME] [--mode MODE] TOOL ARGUMENTS_JSON http <MCP endpoint URL>

--service sets the resource's service.name (default: OTEL_SERVICE_NAME, else "mcp-python-client");
OTEL_RESOURCE_ATTRIBUTES adds to the resource. --mode is the client's `mode`: "auto" (the default:
`server/discover`, falling back to the initialize handshake), "legacy" (the initialize handshake
only) or a 2026-era protocol version to adopt directly.

It runs in the virtualenv of interop/requirements-v2.txt (.tools/py2), apart from the 1.x client.
"""

import argparse
import asyncio
import json
import os
import sys

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from transcript import plain


class CheckedExporter(SpanExporter):
    """The OTLP/HTTP exporter, remembering whether an export failed (the SDK only logs it)."""

    def __init__(self):
        self.inner, self.failed = OTLPSpanExporter(), False

    def export(self, spans):
        result = self.inner.export(spans)
        self.failed |= result is not SpanExportResult.SUCCESS
        return result

    def shutdown(self):
        self.inner.shutdown()

    def force_flush(self, timeout_millis=30000):
        return self.inner.force_flush(timeout_millis)


async def run(tracer, args):
    """Connects, calls the tool inside the root span, and returns what to print."""
    # The server inherits this environment (its OTEL_* variables, so that it exports too).
    server = (
        StdioServerParameters(command=args.target[0], args=args.target[1:], env=dict(os.environ))
        if args.transport == "stdio"
        else args.target[0]
    )

    async def on_elicit(context, params):
        """Accepts every question, answering yes to each yes-or-no field."""
        schema = getattr(params, "requested_schema", None) or {}
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        return types.ElicitResult(
            action="accept",
            content={name: True for name, p in properties.items() if p.get("type") == "boolean"},
        )

    with tracer.start_as_current_span("agent") as root:
        async with Client(
            server,
            mode=args.mode,
            client_info=types.Implementation(name="otel-client-py2", version="1.0.0"),
            elicitation_callback=on_elicit,
        ) as client:
            result = await client.call_tool(args.tool, json.loads(args.arguments))
            version = client.protocol_version
    context = root.get_span_context()
    return {
        "traceId": format(context.trace_id, "032x"),
        "rootSpanId": format(context.span_id, "016x"),
        "protocolVersion": version,
        "result": plain(result),
    }


def main():
    parser = argparse.ArgumentParser(description="Calls one MCP tool under OpenTelemetry.")
    parser.add_argument("--service", default=os.environ.get("OTEL_SERVICE_NAME") or "mcp-python-client")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("tool")
    parser.add_argument("arguments", help="the tool's arguments, a JSON object")
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("target", nargs=argparse.REMAINDER, help="the server command, or the URL")
    args = parser.parse_args()
    if not args.target:
        parser.error("a server command or URL is required")
    if not (os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")):
        parser.error("OTEL_EXPORTER_OTLP_ENDPOINT names no collector")

    exporter = CheckedExporter()
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: args.service}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    # The SDK's spans go through the global provider (mcp.shared._otel asks it for its tracer).
    trace.set_tracer_provider(provider)
    try:
        output = asyncio.run(run(provider.get_tracer("otel_client.py"), args))
    finally:
        provider.shutdown()  # exports what is left
    if exporter.failed:
        print("otel_client.py: exporting the spans failed", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(output))


if __name__ == "__main__":
    main()
