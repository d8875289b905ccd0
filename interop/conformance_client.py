"""Drives the `conformance-server` example with the official Python client (`mcp` on PyPI) through
every fixture the conformance suite uses, and prints what it saw as one JSON object (the transcript)
on stdout. The Rust interop test (tests/tests/all/interop_clients.rs) compares it with exact expected
values, which the suite's own checks do not always look at.

Usage: python interop/conformance_client.py stdio <server command> [args...]
       python interop/conformance_client.py http <MCP endpoint URL>

The scenario is the same as interop/conformance_client.mjs's, step for step.
"""

import json

from mcp import types

from common import Recorder, connect, failure, main, plain, progress_recorder

# The answers of the user, by the first property of the form asked.
FORMS = {
    "username": {"username": "testuser", "email": "test@example.com"},
    "name": {"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": False},
    "untitledSingle": {
        "untitledSingle": "option1",
        "titledSingle": "value1",
        "legacyEnum": "opt1",
        "untitledMulti": ["option1", "option2"],
        "titledMulti": ["value1", "value2"],
    },
}

SIMPLE_TOOLS = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
]


async def run(mode, target):
    recorder = Recorder(
        lambda params: FORMS[next(iter(params.requestedSchema["properties"]))],
        "test-model",
        "This is a test response from the client",
    )
    transcript = {}
    async with connect(mode, target) as (read, write):
        async with recorder.session(read, write) as session:
            initialized = await session.initialize()
            transcript["serverInfo"] = plain(initialized.serverInfo)
            transcript["capabilities"] = plain(initialized.capabilities)

            tools = (await session.list_tools()).tools
            transcript["toolNames"] = [tool.name for tool in tools]
            transcript["jsonSchemaTool"] = next(
                plain(tool) for tool in tools if tool.name == "json_schema_2020_12_tool"
            )
            for name in SIMPLE_TOOLS:
                transcript[name] = plain(await session.call_tool(name, {}))
            transcript["jsonSchemaValid"] = plain(
                await session.call_tool(
                    "json_schema_2020_12_tool", {"name": "Ada", "email": "a@b.c"}
                )
            )
            transcript["jsonSchemaInvalid"] = plain(
                await session.call_tool("json_schema_2020_12_tool", {"name": "Ada"})
            )

            transcript["setLevel"] = plain(await session.set_logging_level("debug"))
            transcript["test_tool_with_logging"] = plain(
                await session.call_tool("test_tool_with_logging", {})
            )
            transcript["logs"] = recorder.take_logs()
            progress, on_progress = progress_recorder()
            transcript["test_tool_with_progress"] = plain(
                await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            )
            transcript["progress"] = progress

            transcript["test_sampling"] = plain(
                await session.call_tool("test_sampling", {"prompt": "Test prompt for sampling"})
            )
            transcript["samplings"] = recorder.samplings
            transcript["test_elicitation"] = plain(
                await session.call_tool(
                    "test_elicitation", {"message": "Please provide your information"}
                )
            )
            for name in ["test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"]:
                transcript[name] = plain(await session.call_tool(name, {}))
            transcript["elicitations"] = recorder.elicitations

            transcript["resources"] = plain((await session.list_resources()).resources)
            transcript["templates"] = plain(
                (await session.list_resource_templates()).resourceTemplates
            )
            for uri in ["test://static-text", "test://static-binary", "test://template/123/data"]:
                transcript[uri] = plain(await session.read_resource(uri))
            transcript["readMissing"] = await failure(session.read_resource("test://missing"))
            transcript["subscribe"] = plain(
                await session.subscribe_resource("test://watched-resource")
            )
            transcript["unsubscribe"] = plain(
                await session.unsubscribe_resource("test://watched-resource")
            )
            transcript["updates"] = recorder.updates

            transcript["prompts"] = plain((await session.list_prompts()).prompts)
            transcript["test_simple_prompt"] = plain(await session.get_prompt("test_simple_prompt"))
            transcript["test_prompt_with_arguments"] = plain(
                await session.get_prompt(
                    "test_prompt_with_arguments", {"arg1": "testValue1", "arg2": "testValue2"}
                )
            )
            transcript["test_prompt_with_embedded_resource"] = plain(
                await session.get_prompt(
                    "test_prompt_with_embedded_resource", {"resourceUri": "test://example-resource"}
                )
            )
            transcript["test_prompt_with_image"] = plain(
                await session.get_prompt("test_prompt_with_image")
            )
            transcript["complete"] = plain(
                await session.complete(
                    types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                    {"name": "arg1", "value": "test"},
                )
            )
            transcript["transportErrors"] = recorder.transport_errors
    print(json.dumps(transcript))


if __name__ == "__main__":
    main("conformance_client.py", run)
