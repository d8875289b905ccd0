//! Rendering protocol values for one revision.
//!
//! The model in this crate is the union of every revision: a field that a later revision added is an
//! `Option`, and a variant that a later revision added is just another variant. What a peer receives
//! must still be valid for *its* revision, so every value is serialized with a target revision in
//! scope: fields newer than the target are left out, fields the target removed are left out, and
//! content the target does not know is turned into a form it accepts (audio before `2025-03-26`
//! becomes an embedded resource, a `resource_link` before `2025-06-18` becomes text, and so on).
//!
//! Rendering is ordinary serde serialization, so it costs nothing beyond serialization itself: the
//! target is kept in a thread-local for the duration of one `serialize` call, and the `Serialize`
//! impls of the protocol types consult it. Serializing without a target renders for
//! [`ProtocolVersion::LATEST`].
//!
//! ```
//! use mcp_core::{ProtocolVersion, render, tools::Tool};
//!
//! let mut tool = Tool::new("add", serde_json::json!({"type": "object"}).as_object().unwrap().clone());
//! tool.title = Some("Add".into());
//! // 2025-06-18 introduced `title`; a 2025-03-26 peer never sees it.
//! let old = render::to_value(&tool, ProtocolVersion::V2025_03_26).unwrap();
//! assert!(old.get("title").is_none());
//! let new = render::to_value(&tool, ProtocolVersion::V2025_06_18).unwrap();
//! assert_eq!(new["title"], "Add");
//! ```

use std::cell::Cell;
use std::io;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::version::ProtocolVersion;

thread_local! {
    static TARGET: Cell<ProtocolVersion> = const { Cell::new(ProtocolVersion::LATEST) };
}

/// The revision that values are being rendered for on this thread right now.
///
/// Custom `Serialize` impls of values that travel inside protocol messages may consult it.
pub fn target() -> ProtocolVersion {
    TARGET.with(Cell::get)
}

/// Runs `f` with `version` as the rendering target, restoring the previous target afterwards (also
/// when `f` unwinds).
pub fn with_target<R>(version: ProtocolVersion, f: impl FnOnce() -> R) -> R {
    struct Restore(ProtocolVersion);
    impl Drop for Restore {
        fn drop(&mut self) {
            TARGET.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(TARGET.with(|t| t.replace(version)));
    f()
}

/// A value paired with the revision it is to be rendered for; serializing it renders the value.
///
/// Useful to embed a rendered value in a larger serialization, or to hand it to a serializer other
/// than `serde_json`'s helpers below.
#[derive(Clone, Copy, Debug)]
pub struct Versioned<'a, T: ?Sized> {
    value: &'a T,
    version: ProtocolVersion,
}

impl<'a, T: ?Sized> Versioned<'a, T> {
    /// Pairs `value` with `version`.
    pub fn new(value: &'a T, version: ProtocolVersion) -> Self {
        Versioned { value, version }
    }
}

impl<T: Serialize + ?Sized> Serialize for Versioned<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        with_target(self.version, || self.value.serialize(serializer))
    }
}

/// Renders `value` for `version` as a JSON value.
pub fn to_value<T: Serialize + ?Sized>(
    value: &T,
    version: ProtocolVersion,
) -> serde_json::Result<Value> {
    serde_json::to_value(Versioned::new(value, version))
}

/// Renders `value` for `version` as JSON text (one line, as the stdio transport needs it).
pub fn to_string<T: Serialize + ?Sized>(
    value: &T,
    version: ProtocolVersion,
) -> serde_json::Result<String> {
    serde_json::to_string(&Versioned::new(value, version))
}

/// Renders `value` for `version` as JSON bytes.
pub fn to_vec<T: Serialize + ?Sized>(
    value: &T,
    version: ProtocolVersion,
) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&Versioned::new(value, version))
}

/// Renders `value` for `version` into `writer`.
pub fn to_writer<W: io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
    version: ProtocolVersion,
) -> serde_json::Result<()> {
    serde_json::to_writer(writer, &Versioned::new(value, version))
}

/// A field value that may be absent (an `Option` that is `None`).
pub(crate) trait MaybeAbsent {
    fn is_absent(&self) -> bool;
}

impl<T> MaybeAbsent for Option<T> {
    fn is_absent(&self) -> bool {
        self.is_none()
    }
}

/// Helpers for `#[serde(skip_serializing_if = "...")]`: whether a field is left out for the current
/// rendering target.
pub(crate) mod skip {
    use super::{MaybeAbsent, target};
    use crate::version::ProtocolVersion;

    macro_rules! since {
        ($($name:ident => $version:ident),* $(,)?) => {$(
            /// Left out when absent or when the target predates the revision that added it.
            pub(crate) fn $name<T: MaybeAbsent>(value: &T) -> bool {
                value.is_absent() || target() < ProtocolVersion::$version
            }
        )*};
    }

    since! {
        since_2025_03_26 => V2025_03_26,
        since_2025_06_18 => V2025_06_18,
        since_2025_11_25 => V2025_11_25,
        since_2026_07_28 => V2026_07_28,
    }

    /// Left out when absent or when the target is `2026-07-28` or later (fields that revision
    /// removed).
    pub(crate) fn until_2025_11_25<T: MaybeAbsent>(value: &T) -> bool {
        value.is_absent() || target() > ProtocolVersion::V2025_11_25
    }

    /// Left out when absent or when the target is not `2025-11-25` (fields of the 2025-11-25 tasks
    /// feature, which 2026-07-28 moved to an extension).
    pub(crate) fn only_2025_11_25<T: MaybeAbsent>(value: &T) -> bool {
        value.is_absent() || target() != ProtocolVersion::V2025_11_25
    }

    /// Left out when the target predates `2026-07-28` (fields that revision made required, such as
    /// `resultType`, `ttlMs` and `cacheScope`).
    pub(crate) fn before_2026_07_28<T>(_: &T) -> bool {
        target() < ProtocolVersion::V2026_07_28
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_is_scoped_and_restored() {
        assert_eq!(target(), ProtocolVersion::LATEST);
        with_target(ProtocolVersion::V2024_11_05, || {
            assert_eq!(target(), ProtocolVersion::V2024_11_05);
            with_target(ProtocolVersion::V2025_06_18, || {
                assert_eq!(target(), ProtocolVersion::V2025_06_18);
            });
            assert_eq!(target(), ProtocolVersion::V2024_11_05);
        });
        assert_eq!(target(), ProtocolVersion::LATEST);
        let unwound = std::panic::catch_unwind(|| {
            with_target(ProtocolVersion::V2025_03_26, || panic!("boom"))
        });
        assert!(unwound.is_err());
        assert_eq!(target(), ProtocolVersion::LATEST);
    }
}
