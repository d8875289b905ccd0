//! Protocol revisions, their eras, and version negotiation: the crate's root re-exports every item
//! and documents them ("Revisions and eras").

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Era;
use crate::error::{ErrorCode, ErrorObject};

/// One released revision of the Model Context Protocol.
///
/// Versions are ordered by release date, so `v >= ProtocolVersion::V2025_06_18` asks "does this peer
/// speak at least 2025-06-18?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`: the first revision (HTTP+SSE transport).
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, audio content, tool annotations, JSON-RPC batches.
    V2025_03_26,
    /// `2025-06-18`: structured tool output, elicitation, resource links, titles; no batches.
    V2025_06_18,
    /// `2025-11-25`: icons, URL-mode elicitation, sampling with tools, tasks.
    V2025_11_25,
    /// `2026-07-28`: the stateless revision (per-request `_meta`, `server/discover`, multi-round-trip
    /// requests, `subscriptions/listen`, caching hints).
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every revision this crate models, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;

    /// The newest revision of the handshake era.
    pub const LATEST_HANDSHAKE: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision's name as it appears on the wire, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Looks a revision up by its wire name; `None` for anything this crate does not know.
    pub fn from_name(name: &str) -> Option<ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == name)
    }

    /// The era this revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Stateless,
            _ => Era::Handshake,
        }
    }

    /// Whether peers of this revision may send JSON-RPC batches (only `2025-03-26` allows them).
    pub const fn accepts_batches(self) -> bool {
        matches!(self, ProtocolVersion::V2025_03_26)
    }

    /// The error code for "resource not found": `-32002` up to `2025-11-25`, `-32602` after.
    pub const fn resource_not_found_code(self) -> ErrorCode {
        self.era().resource_not_found_code()
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for a revision name this crate does not know.
///
/// As an [`ErrorObject`] it is `-32602` (invalid params): the name arrived in a request's params or
/// `_meta`. A server refusing a *known* revision it does not serve answers with
/// [`UnsupportedVersion`] instead, which also lists what it does serve.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol version `{0}`")]
pub struct UnknownVersion(pub String);

impl From<UnknownVersion> for ErrorObject {
    fn from(err: UnknownVersion) -> Self {
        ErrorObject::invalid_params(err.to_string()).with_data(serde_json::json!({
            "supported": SupportedVersions::ALL.names(),
            "requested": err.0,
        }))
    }
}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ProtocolVersion::from_name(s).ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// A set of revisions that one side is willing to speak.
///
/// The default is every revision. A server that wants to serve only some (say, only the stateless
/// era) narrows it with [`SupportedVersions::only`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SupportedVersions {
    mask: u8,
}

impl SupportedVersions {
    /// Every revision.
    pub const ALL: SupportedVersions = SupportedVersions {
        mask: (1 << ProtocolVersion::ALL.len()) - 1,
    };

    /// Exactly the given revisions. `None` when the list is empty.
    pub fn only(versions: impl IntoIterator<Item = ProtocolVersion>) -> Option<SupportedVersions> {
        let mask = versions.into_iter().fold(0, |mask, v| mask | v.bit());
        (mask != 0).then_some(SupportedVersions { mask })
    }

    /// Whether `version` is in the set.
    pub const fn contains(self, version: ProtocolVersion) -> bool {
        self.mask & version.bit() != 0
    }

    /// The revisions in the set, newest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .rev()
            .filter(move |v| self.contains(*v))
    }

    /// The newest revision of `era` in the set.
    pub fn latest(self, era: Era) -> Option<ProtocolVersion> {
        self.iter().find(|v| v.era() == era)
    }

    /// The wire names of the revisions in the set, newest first (for `supportedVersions` and for the
    /// data of an unsupported-version error).
    pub fn names(self) -> Vec<String> {
        self.iter().map(|v| v.as_str().to_owned()).collect()
    }

    /// Chooses the revision to answer an `initialize` request with.
    ///
    /// A client asking for a handshake revision in the set gets it; otherwise the answer is the newest
    /// handshake revision in the set (the client then decides whether it can speak that). The only
    /// failure is a set without any handshake revision.
    pub fn negotiate_initialize(
        self,
        requested: &str,
    ) -> Result<ProtocolVersion, UnsupportedVersion> {
        match ProtocolVersion::from_name(requested) {
            Some(v) if v.era() == Era::Handshake && self.contains(v) => Ok(v),
            _ => self
                .latest(Era::Handshake)
                .ok_or_else(|| UnsupportedVersion::new(requested, self, Era::Handshake)),
        }
    }

    /// Checks the revision named in a stateless request's `_meta`: it must be a stateless revision in the
    /// set, otherwise the request gets an [`UnsupportedVersion`] error (`-32022`).
    pub fn check_stateless(self, requested: &str) -> Result<ProtocolVersion, UnsupportedVersion> {
        match ProtocolVersion::from_name(requested) {
            Some(v) if v.era() == Era::Stateless && self.contains(v) => Ok(v),
            _ => Err(UnsupportedVersion::new(requested, self, Era::Stateless)),
        }
    }
}

impl Default for SupportedVersions {
    fn default() -> Self {
        SupportedVersions::ALL
    }
}

impl fmt::Debug for SupportedVersions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(ProtocolVersion::as_str))
            .finish()
    }
}

/// A request named a protocol revision the receiver does not serve.
///
/// The error code follows the era of the exchange that was refused: an `initialize` request (handshake
/// era) gets `-32602`, as the 2025 lifecycle docs show ("Unsupported protocol version"; `-32022`
/// does not exist before 2026-07-28), and a stateless request gets `-32022`
/// (`UnsupportedProtocolVersionError`, `basic/versioning` of 2026-07-28). Both carry the supported
/// and requested revisions in `data`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unsupported protocol version `{requested}` (supported: {})", supported.join(", "))]
pub struct UnsupportedVersion {
    /// The revision the request named.
    pub requested: String,
    /// The revisions the receiver does serve, newest first.
    pub supported: Vec<String>,
    /// The era of the refused exchange, which decides the error code.
    pub era: Era,
}

impl UnsupportedVersion {
    /// The error for `requested`, listing the revisions in `supported`, refused in an exchange of
    /// `era` (`initialize` belongs to the handshake era, a request carrying its version in `_meta` to the stateless one).
    pub fn new(requested: &str, supported: SupportedVersions, era: Era) -> Self {
        UnsupportedVersion {
            requested: requested.to_owned(),
            supported: supported.names(),
            era,
        }
    }

    /// The error code: `-32602` in the handshake era, `-32022` in the stateless one.
    pub const fn code(&self) -> ErrorCode {
        match self.era {
            Era::Handshake => ErrorCode::INVALID_PARAMS,
            Era::Stateless => ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        }
    }
}

impl From<UnsupportedVersion> for ErrorObject {
    fn from(err: UnsupportedVersion) -> Self {
        ErrorObject::new(err.code(), "Unsupported protocol version").with_data(serde_json::json!({
            "supported": err.supported,
            "requested": err.requested,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_ordered_and_named() {
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_03_26);
        assert!(ProtocolVersion::V2025_11_25 < ProtocolVersion::V2026_07_28);
        let names: Vec<_> = ProtocolVersion::ALL.iter().map(|v| v.to_string()).collect();
        assert_eq!(
            names,
            [
                "2024-11-05",
                "2025-03-26",
                "2025-06-18",
                "2025-11-25",
                "2026-07-28"
            ]
        );
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>(), Ok(v));
        }
        assert_eq!(
            "2025-13-01".parse::<ProtocolVersion>(),
            Err(UnknownVersion("2025-13-01".into()))
        );
        let obj = ErrorObject::from(UnknownVersion("2025-13-01".into()));
        assert_eq!(
            serde_json::to_value(&obj).unwrap(),
            serde_json::json!({"code": -32602, "message": "unknown protocol version `2025-13-01`",
                               "data": {"supported": ["2026-07-28", "2025-11-25", "2025-06-18",
                                                      "2025-03-26", "2024-11-05"],
                                        "requested": "2025-13-01"}})
        );
    }

    #[test]
    fn only_2025_03_26_accepts_batches() {
        let batching: Vec<_> = ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.accepts_batches())
            .collect();
        assert_eq!(batching, [ProtocolVersion::V2025_03_26]);
    }

    #[test]
    fn resource_not_found_code_depends_on_era() {
        assert_eq!(
            ProtocolVersion::V2025_11_25.resource_not_found_code().0,
            -32002
        );
        assert_eq!(
            ProtocolVersion::V2026_07_28.resource_not_found_code().0,
            -32602
        );
    }

    #[test]
    fn initialize_negotiation() {
        let all = SupportedVersions::ALL;
        for v in ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.era() == Era::Handshake)
        {
            assert_eq!(all.negotiate_initialize(v.as_str()), Ok(v));
        }
        // A stateless revision is not negotiable through initialize.
        assert_eq!(
            all.negotiate_initialize("2026-07-28"),
            Ok(ProtocolVersion::V2025_11_25)
        );
        let narrow =
            SupportedVersions::only([ProtocolVersion::V2025_03_26, ProtocolVersion::V2026_07_28])
                .unwrap();
        assert_eq!(
            narrow.negotiate_initialize("2025-06-18"),
            Ok(ProtocolVersion::V2025_03_26)
        );
        let stateless_only = SupportedVersions::only([ProtocolVersion::V2026_07_28]).unwrap();
        assert_eq!(
            stateless_only.negotiate_initialize("2025-06-18"),
            Err(UnsupportedVersion {
                requested: "2025-06-18".into(),
                supported: vec!["2026-07-28".into()],
                era: Era::Handshake,
            })
        );
        // The handshake era has no -32022: initialize is refused with -32602 (2025-11-25
        // basic/lifecycle, "Unsupported protocol version").
        let obj = ErrorObject::from(
            stateless_only
                .negotiate_initialize("2025-06-18")
                .unwrap_err(),
        );
        assert_eq!(
            serde_json::to_value(&obj).unwrap(),
            serde_json::json!({"code": -32602, "message": "Unsupported protocol version",
                               "data": {"supported": ["2026-07-28"], "requested": "2025-06-18"}})
        );
    }

    #[test]
    fn stateless_check_and_error_object() {
        let all = SupportedVersions::ALL;
        assert_eq!(
            all.check_stateless("2026-07-28"),
            Ok(ProtocolVersion::V2026_07_28)
        );
        let err = all.check_stateless("2025-11-25").unwrap_err();
        assert_eq!(err.era, Era::Stateless);
        let obj = ErrorObject::from(err);
        assert_eq!(obj.code.0, -32022);
        assert_eq!(obj.message, "Unsupported protocol version");
        assert_eq!(
            obj.data,
            Some(serde_json::json!({
                "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
                "requested": "2025-11-25",
            }))
        );
        assert_eq!(SupportedVersions::only([]), None);
        assert_eq!(
            format!(
                "{:?}",
                SupportedVersions::only([ProtocolVersion::V2024_11_05]).unwrap()
            ),
            "{\"2024-11-05\"}"
        );
    }
}
