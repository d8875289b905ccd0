//! Opening `requestState` tokens (2026-07-28): any text, against a fixed key and request. A
//! token the fuzzer forges must never open; the seed corpus holds genuine ones to mutate.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::request_state::{RequestBinding, RequestStateCodec};
use serde_json::json;

fn codec() -> &'static (RequestStateCodec, RequestBinding) {
    static CODEC: OnceLock<(RequestStateCodec, RequestBinding)> = OnceLock::new();
    CODEC.get_or_init(|| {
        let codec = RequestStateCodec::new("k1", [7u8; 32].to_vec()).expect("a 32-byte key");
        let binding = RequestBinding::new(
            None,
            "tools/call",
            &json!({"name": "delete_note", "arguments": {"id": 1}}),
        );
        (codec, binding)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else {
        return;
    };
    let (codec, binding) = codec();
    if let Ok(opened) = codec.open(token, binding) {
        // Only a token sealed with the key opens; the seeds are sealed over this value.
        assert_eq!(opened, json!({"step": 1}), "a forged token opened");
    }
});
