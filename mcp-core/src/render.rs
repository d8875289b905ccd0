//! Rendering protocol values for one revision.
//!
//! The model in this crate is the union of every revision: a field that a later revision added is an
//! `Option`, and a variant that a later revision added is just another variant. What a peer receives
//! must still be valid for *its* revision, so every value is serialized with a target revision in
//! scope: fields newer than the target are left out, fields the target removed are left out, and
//! content the target does not know is turned into a form it accepts (audio before `2025-03-26`
//! becomes an embedded resource, a `resource_link` before `2025-06-18` becomes text, and so on).
//!
//! What the target cannot carry at all is refused with a serialization error rather than sent
//! invalid: a method the target's schema does not define (`tasks/*` outside 2025-11-25,
//! `server/discover` and `subscriptions/listen` before 2026-07-28, `initialize`, `ping`,
//! `logging/setLevel`, resource subscriptions and the handshake-era notifications in 2026-07-28), URL-mode
//! elicitation before 2025-11-25, a field the target requires and the value lacks (`requestId` of a
//! cancellation outside 2025-11-25, `elicitationId` in 2025-11-25), and floats or `null` inside the
//! fields 2026-07-28 types as `JSONObject`.
//!
//! Rendering is ordinary serde serialization, so it costs nothing beyond serialization itself: the
//! target is kept in a thread-local for the duration of one `serialize` call, and the `Serialize`
//! impls of the protocol types consult it. Serializing without a target renders for
//! [`ProtocolVersion::LATEST`].
//!
//! ```
//! use mcp_runtime_core::{ProtocolVersion, render, tools::Tool};
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
use std::sync::Arc;
use std::{fmt, io};

use serde::{Serialize, Serializer, ser};
use serde_json::Value;
use serde_json::value::RawValue;

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

/// A value rendered once for one revision, kept as its JSON text and sent as it is: what a server
/// answers many requests with (its list pages, rendered when first asked and again only after the
/// list changes). Cloning it shares the text.
///
/// Serializing it writes the text verbatim when the rendering target is the revision it was
/// rendered for, and fails for any other (the text may hold what that revision cannot carry).
///
/// ```
/// use mcp_runtime_core::{ProtocolVersion, render::{self, Rendered}, tools::Tool};
///
/// let tool = Tool::new("add", serde_json::json!({"type": "object"}).as_object().unwrap().clone());
/// let rendered = Rendered::new(&tool, ProtocolVersion::V2025_11_25).unwrap();
/// assert_eq!(rendered.json(), r#"{"name":"add","inputSchema":{"type":"object"}}"#);
/// assert_eq!(render::to_string(&rendered, ProtocolVersion::V2025_11_25).unwrap(), rendered.json());
/// assert!(render::to_string(&rendered, ProtocolVersion::V2025_06_18).is_err());
/// ```
#[derive(Clone)]
pub struct Rendered {
    version: ProtocolVersion,
    json: Arc<RawValue>,
}

impl Rendered {
    /// `value` rendered for `version`.
    pub fn new<T: Serialize + ?Sized>(
        value: &T,
        version: ProtocolVersion,
    ) -> serde_json::Result<Self> {
        let json = serde_json::value::to_raw_value(&Versioned::new(value, version))?;
        Ok(Rendered {
            version,
            json: Arc::from(json),
        })
    }

    /// The revision it was rendered for.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// Its JSON text.
    pub fn json(&self) -> &str {
        self.json.get()
    }
}

impl fmt::Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rendered")
            .field("version", &self.version)
            .field("bytes", &self.json.get().len())
            .finish()
    }
}

impl PartialEq for Rendered {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.json.get() == other.json.get()
    }
}

impl Serialize for Rendered {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if target() != self.version {
            return Err(unsupported(format_args!(
                "a result rendered for protocol revision {}",
                self.version
            )));
        }
        self.json.serialize(serializer)
    }
}

/// The error for a value that the current rendering target cannot represent, e.g.
/// "URL-mode elicitation cannot be rendered for protocol revision 2025-06-18".
///
/// Every refusal of this module goes through here, so they all read alike. A refusal is an ordinary
/// serialization error: [`to_value`] and friends return it, and nothing is written.
pub(crate) fn unsupported<E: ser::Error>(what: impl fmt::Display) -> E {
    E::custom(format_args!(
        "{what} cannot be rendered for protocol revision {}",
        target()
    ))
}

/// The error for a field that the current rendering target requires and the value lacks.
pub(crate) fn missing<E: ser::Error>(field: &str) -> E {
    E::custom(format_args!(
        "missing field `{field}`, which protocol revision {} requires",
        target()
    ))
}

/// `serialize_with` helpers for `Option` fields that some revisions require: they serialize the
/// value, and fail with [`missing`] when it is absent. Pair them with a `skip_serializing_if` that
/// skips the field where it is optional or undefined.
pub(crate) mod required {
    use serde::{Serialize, Serializer};

    macro_rules! required {
        ($($name:ident => $field:literal),* $(,)?) => {$(
            #[doc = concat!("Serializes `", $field, "`, failing when it is absent.")]
            pub(crate) fn $name<T: Serialize, S: Serializer>(
                value: &Option<T>,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                match value {
                    Some(value) => value.serialize(serializer),
                    None => Err(super::missing($field)),
                }
            }
        )*};
    }

    required! {
        request_id => "requestId",
        elicitation_id => "elicitationId",
    }
}

/// `serialize_with` helper for fields that 2026-07-28 types as `JSONObject` (capability settings,
/// sampling `metadata`): that revision's `JSONValue` admits strings, integers, booleans, arrays and
/// objects only, so a float or a `null` anywhere inside fails rendering for it (naming the path of the
/// offending value). Older revisions take any JSON.
pub(crate) fn json_object<T: Serialize, S: Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if target() >= ProtocolVersion::V2026_07_28
        && let Some(value) = value
    {
        let json = serde_json::to_value(value).map_err(ser::Error::custom)?;
        if let Some(path) = first_non_json_value(&json, String::new()) {
            return Err(unsupported(format_args!(
                "`{path}` (a float or null, which `JSONValue` does not admit)"
            )));
        }
    }
    value.serialize(serializer)
}

/// The path of the first float or `null` inside `value` (relative to `path`), if any.
fn first_non_json_value(value: &Value, path: String) -> Option<String> {
    match value {
        Value::Null => Some(path),
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => Some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| first_non_json_value(item, format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            let path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            first_non_json_value(item, path)
        }),
        _ => None,
    }
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

    /// Left out when the target is not `2025-11-25`, whether present or not (for a field only that
    /// revision defines and requires; pair with a [`super::required`] helper).
    pub(crate) fn unless_2025_11_25<T>(_: &T) -> bool {
        target() != ProtocolVersion::V2025_11_25
    }

    /// Left out when absent and the target is `2025-11-25`, the only revision where the field is
    /// optional (every other revision requires it; pair with a [`super::required`] helper).
    pub(crate) fn absent_in_2025_11_25<T: MaybeAbsent>(value: &T) -> bool {
        value.is_absent() && target() == ProtocolVersion::V2025_11_25
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
