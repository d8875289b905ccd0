//! What a handler's panic says: its message, for the error the server answers with and logs.

/// The message of a panic payload (a `&str` or a `String`; "no message" otherwise).
pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}
