//! The client's `text/event-stream` decoder: any bytes, in any chunks. The first byte sets the
//! chunk size; the events must be the same as when the bytes come in one piece.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::sse::{Decoder, Event};

const LIMIT: usize = 4096;

fn decode<'a>(chunks: impl Iterator<Item = &'a [u8]>) -> (Vec<Event>, bool) {
    let mut decoder = Decoder::new(LIMIT);
    let mut events = Vec::new();
    for chunk in chunks {
        match decoder.feed(chunk) {
            Ok(more) => events.extend(more),
            Err(_) => return (events, true),
        }
    }
    (events, false)
}

fuzz_target!(|data: &[u8]| {
    let Some((&size, stream)) = data.split_first() else {
        return;
    };
    let (whole, whole_failed) = decode(std::iter::once(stream));
    let (chunked, chunked_failed) = decode(stream.chunks(usize::from(size.max(1))));
    assert_eq!(whole_failed, chunked_failed);
    if !whole_failed {
        assert_eq!(whole, chunked);
    }
    for event in &whole {
        assert!(event.data.len() <= LIMIT);
    }
});
