//! `McpServer::handle_raw` on the notebook of the `notes-server` example: one connection, fed
//! the fuzzer's input as a sequence of messages (split at newlines), after a handshake so that
//! the tools, prompts and resources are reached, not only the lifecycle checks. The notebook is
//! reset before each input, so that notes added by one input do not slow down the next.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::prelude::*;
use notes::Notebook;

/// The notebook of the examples, compiled into this target (through the examples' crate, the
/// HTTP client would be built too). The target uses `builder_on`, not the rest of the module.
#[path = "../../examples/src/notes.rs"]
#[allow(dead_code)]
mod notes;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    notebook: Notebook,
    server: McpServer,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let notebook = Notebook::with_examples();
        Fixture {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a runtime"),
            server: notes::builder_on(notebook.clone())
                .build()
                .expect("the notebook server"),
            notebook,
        }
    })
}

const HANDSHAKE: &[&[u8]] = &[
    br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#,
    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

fuzz_target!(|data: &[u8]| {
    let Fixture {
        runtime,
        notebook,
        server,
    } = fixture();
    notebook.reset();
    runtime.block_on(async {
        let connection = ConnectionState::persistent(None);
        // The first byte picks whether the connection starts with a handshake.
        let handshake = data.first().is_some_and(|b| b & 1 == 1);
        let lines = HANDSHAKE.iter().copied().filter(|_| handshake);
        for line in lines.chain(data.get(1..).unwrap_or_default().split(|b| *b == b'\n')) {
            if let Some(reply) = server.handle_raw(line, &connection, None).await {
                // Every reply is one JSON value.
                serde_json::from_str::<serde_json::Value>(&reply).expect("a reply is JSON");
            }
        }
        connection.close();
    });
});
