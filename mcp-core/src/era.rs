//! The two eras of the protocol, and everything that differs between them: the one place the
//! runtime asks. The crate's root re-exports every item ("Revisions and eras").
//!
//! | | handshake era (up to `2025-11-25`) | stateless era (`2026-07-28`) |
//! |---|---|---|
//! | state | a connection keeps what `initialize` settled ([`Era::keeps_state`]) | none: every request stands alone |
//! | the client | declared once, in `initialize` | declared in each request's `_meta` ([`Era::client_in_meta`]) |
//! | asking the client | a request to the client ([`Asking::Request`]) | an input-required result ([`Asking::InputRequired`]) |
//! | a missing client capability | a tool error naming it | `-32021` ([`Era::missing_capability`]) |
//! | a result's `_meta` | as the handler left it | names the server ([`Era::result_names_server`]) |
//! | tasks | part of the protocol ([`TaskModel::Core`]) | an extension ([`TaskModel::Extension`]) |
//! | "resource not found" | `-32002` | `-32602` ([`Era::resource_not_found_code`]) |
//! | HTTP status of an error | 200 | some codes have theirs ([`Era::http_status`]) |
//!
//! Which era a request is of is decided once, when it arrives, from its revision
//! ([`ProtocolVersion::era`]); code after that asks these rules rather than the era's name.
//!
//! ```
//! use mcp_runtime_core::{Asking, Era, ProtocolVersion};
//!
//! let era = ProtocolVersion::V2026_07_28.era();
//! assert_eq!(era, Era::Stateless);
//! assert!(!era.keeps_state());
//! assert_eq!(era.asks_client(), Asking::InputRequired);
//! assert_eq!(ProtocolVersion::V2025_06_18.era().asks_client(), Asking::Request);
//! ```

use crate::ProtocolVersion;
use crate::capabilities::{ClientCapabilities, MissingClientCapability};
use crate::error::{ErrorCode, ErrorObject};

/// The two eras of the protocol, which differ in how a conversation starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Era {
    /// Revisions up to `2025-11-25`: an `initialize` handshake opens a session whose version and
    /// capabilities hold for every later message.
    Handshake,
    /// Revisions from `2026-07-28` on: every request carries its version, client capabilities and
    /// client info in `_meta`; there is no session.
    Stateless,
}

/// How a server asks the client something (sampling, elicitation, the roots) while it handles a
/// request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Asking {
    /// The server sends the client a request of its own on the connection and waits for its
    /// response.
    Request,
    /// The server answers with an input-required result naming what it needs; the client sends
    /// the request again with the answers (and the `requestState` it was given).
    InputRequired,
}

/// How a revision that has tasks runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskModel {
    /// `2025-11-25`: part of the protocol. A call asks for a task with its `task` params, the
    /// task's messages and `notifications/tasks/status` go on the session, and `tasks/cancel`
    /// answers with the cancelled task (refusing one that already ended).
    Core,
    /// `2026-07-28`: the `io.modelcontextprotocol/tasks` extension, which a request declares in
    /// its client capabilities. `notifications/tasks` go to the `subscriptions/listen` streams
    /// that ask for them, and `tasks/cancel` acknowledges whatever the task's state.
    Extension,
}

impl Era {
    /// The newest revision of this era.
    pub const fn latest(self) -> ProtocolVersion {
        match self {
            Era::Handshake => ProtocolVersion::LATEST_HANDSHAKE,
            Era::Stateless => ProtocolVersion::LATEST,
        }
    }

    /// Whether a connection keeps state between requests: the version and client that
    /// `initialize` settled, the lifecycle's order (`initialize` first), the log level, and the
    /// session that notifications and the server's own requests travel on.
    pub const fn keeps_state(self) -> bool {
        matches!(self, Era::Handshake)
    }

    /// Whether each request declares the client (its capabilities, information and log level)
    /// in its `_meta`, rather than once in `initialize`.
    pub const fn client_in_meta(self) -> bool {
        matches!(self, Era::Stateless)
    }

    /// How the server asks the client something while it handles a request.
    pub const fn asks_client(self) -> Asking {
        match self {
            Era::Handshake => Asking::Request,
            Era::Stateless => Asking::InputRequired,
        }
    }

    /// The error of a request that needs the client capabilities `required`, which the client
    /// did not declare: `-32021`, naming them so that the client can declare them and retry
    /// (stateless era); `None` in the handshake era, whose tool calls fail with a tool error
    /// that says which.
    pub fn missing_capability(self, required: &ClientCapabilities) -> Option<ErrorObject> {
        match self {
            Era::Handshake => None,
            Era::Stateless => Some(
                MissingClientCapability {
                    required: required.clone(),
                }
                .into(),
            ),
        }
    }

    /// Whether a result's `_meta` names the server (`serverInfo`), since no handshake did.
    pub const fn result_names_server(self) -> bool {
        matches!(self, Era::Stateless)
    }

    /// How tasks run, in the revisions of this era that have them (from `2025-11-25`).
    pub const fn tasks(self) -> TaskModel {
        match self {
            Era::Handshake => TaskModel::Core,
            Era::Stateless => TaskModel::Extension,
        }
    }

    /// The error code for "resource not found": `-32002` up to `2025-11-25`, `-32602` after.
    pub const fn resource_not_found_code(self) -> ErrorCode {
        match self {
            Era::Handshake => ErrorCode::RESOURCE_NOT_FOUND,
            Era::Stateless => ErrorCode::INVALID_PARAMS,
        }
    }

    /// The HTTP status of an error reply with `code` sent as a JSON body: the stateless era ties
    /// some codes to a status (`-32601` 404; `-32020`, `-32021` and `-32022` 400); anything else
    /// is 200.
    pub const fn http_status(self, code: ErrorCode) -> u16 {
        match self {
            Era::Handshake => 200,
            Era::Stateless => match code {
                ErrorCode::METHOD_NOT_FOUND => 404,
                ErrorCode::HEADER_MISMATCH
                | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
                | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => 400,
                _ => 200,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eras_differ_in_each_rule() {
        let (old, new) = (Era::Handshake, Era::Stateless);
        assert_eq!((old.keeps_state(), new.keeps_state()), (true, false));
        assert_eq!((old.client_in_meta(), new.client_in_meta()), (false, true));
        assert_eq!(
            (old.asks_client(), new.asks_client()),
            (Asking::Request, Asking::InputRequired)
        );
        assert_eq!(
            (old.tasks(), new.tasks()),
            (TaskModel::Core, TaskModel::Extension)
        );
        assert_eq!(
            (old.result_names_server(), new.result_names_server()),
            (false, true)
        );
        assert_eq!(old.resource_not_found_code(), ErrorCode(-32002));
        assert_eq!(new.resource_not_found_code(), ErrorCode(-32602));
    }

    #[test]
    fn only_the_stateless_era_refuses_a_missing_capability_with_an_error() {
        let required = ClientCapabilities::named("sampling");
        assert_eq!(Era::Handshake.missing_capability(&required), None);
        let error = Era::Stateless
            .missing_capability(&required)
            .expect("an error");
        assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    }

    #[test]
    fn only_the_stateless_era_ties_error_codes_to_http_statuses() {
        for code in [
            ErrorCode::METHOD_NOT_FOUND,
            ErrorCode::HEADER_MISMATCH,
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            ErrorCode::INVALID_PARAMS,
        ] {
            assert_eq!(Era::Handshake.http_status(code), 200);
        }
        assert_eq!(Era::Stateless.http_status(ErrorCode::METHOD_NOT_FOUND), 404);
        assert_eq!(Era::Stateless.http_status(ErrorCode::HEADER_MISMATCH), 400);
        assert_eq!(
            Era::Stateless.http_status(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
            400
        );
        assert_eq!(
            Era::Stateless.http_status(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION),
            400
        );
        assert_eq!(Era::Stateless.http_status(ErrorCode::INVALID_PARAMS), 200);
        assert_eq!(Era::Stateless.http_status(ErrorCode::INTERNAL_ERROR), 200);
    }
}
