//! DNS-rebinding protection: the `Host` and `Origin` of every request are checked before anything
//! else happens.
//!
//! A web page on a hostile site can make a browser send requests to a server on `localhost` or
//! on a private network, and with DNS rebinding even read the answers: its requests then carry
//! the hostile site's name in `Host` and its origin in `Origin`. So a request is served only when
//!
//! - its `Host` names one of the hosts the server answers to (the loopback names by default;
//!   compared without the port), and
//! - its `Origin`, when it has one (browsers send it), is one of the allowed origins, compared
//!   exactly (scheme, host and port), or the server's own origin: the same host and port as the
//!   request's `Host`.
//!
//! Anything else gets `403 Forbidden`. A server on a public or private address lists the names
//! clients reach it by ([`HostPolicy::hosts`]), and browser applications served from another
//! origin are allowed by name ([`HostPolicy::allow_origins`]). [`HostPolicy::any_host`] turns the
//! `Host` check off, for servers behind a proxy that checks it; browser origins are then allowed
//! only when listed.

use axum::http::{HeaderMap, StatusCode, header};

/// The names of the loopback interface.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Which `Host` and `Origin` values are accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPolicy {
    /// The host names accepted in `Host`, lowercase; `None` accepts any.
    hosts: Option<Vec<String>>,
    /// The origins accepted in `Origin` besides the server's own, as `scheme://host:port`.
    origins: Vec<String>,
}

impl Default for HostPolicy {
    /// [`HostPolicy::loopback`].
    fn default() -> Self {
        HostPolicy::loopback()
    }
}

impl HostPolicy {
    /// The loopback names, `localhost`, `127.0.0.1` and `[::1]` (on any port), and no browser
    /// origin but the server's own: the policy of a server on a loopback address.
    pub fn loopback() -> Self {
        HostPolicy::hosts(LOOPBACK_HOSTS)
    }

    /// The host names `hosts` (without ports: `mcp.example.com`, `10.0.0.5`, `[fd00::1]`), and
    /// no browser origin but the server's own. Add the loopback names with
    /// [`and_loopback`](Self::and_loopback) if local clients use them too.
    pub fn hosts(hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        HostPolicy {
            hosts: Some(
                hosts
                    .into_iter()
                    .map(|h| h.into().to_ascii_lowercase())
                    .collect(),
            ),
            origins: Vec::new(),
        }
    }

    /// Any `Host`: DNS-rebinding protection is left to something in front of the server (a
    /// reverse proxy that routes by name). Browser origins are still checked: only those given
    /// to [`allow_origins`](Self::allow_origins) are accepted.
    pub fn any_host() -> Self {
        HostPolicy {
            hosts: None,
            origins: Vec::new(),
        }
    }

    /// Accepts the loopback names too.
    pub fn and_loopback(mut self) -> Self {
        if let Some(hosts) = &mut self.hosts {
            hosts.extend(LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()));
        }
        self
    }

    /// Accepts requests from web pages of `origins` (`https://app.example.com`,
    /// `http://localhost:5173`): scheme, host and port must match exactly (a default port may be
    /// left out). An entry that is not an origin is ignored, with a warning.
    pub fn allow_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        for origin in origins {
            let origin = origin.into();
            match Origin::parse(&origin) {
                Some(parsed) => self.origins.push(parsed.to_string()),
                None => tracing::warn!(
                    origin,
                    "ignored an allowed origin that is not scheme://host[:port]"
                ),
            }
        }
        self
    }

    /// Whether `Host` is checked (false for [`any_host`](Self::any_host)).
    pub fn checks_host(&self) -> bool {
        self.hosts.is_some()
    }

    fn allows_host(&self, name: &str) -> bool {
        self.hosts
            .as_ref()
            .is_none_or(|hosts| hosts.iter().any(|h| h.eq_ignore_ascii_case(name)))
    }

    /// Why the request's headers are refused, if they are.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let forbidden = |message: String| Err((StatusCode::FORBIDDEN, message));
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let parsed_host = host.and_then(host_and_port);
        if self.checks_host() {
            match parsed_host {
                Some((name, _)) if self.allows_host(name) => {}
                Some(_) => {
                    return forbidden(format!(
                        "Forbidden: the Host header {:?} is not allowed",
                        host.unwrap_or_default()
                    ));
                }
                None => {
                    return forbidden("Forbidden: the request has no valid Host header".into());
                }
            }
        }
        let Some(origin) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let parsed = origin.to_str().ok().and_then(Origin::parse);
        let allowed = parsed.as_ref().is_some_and(|origin| {
            self.origins.contains(&origin.to_string())
                // The server's own origin: only when the Host it is compared with was checked.
                || (self.checks_host()
                    && parsed_host.is_some_and(|(name, port)| {
                        origin.host.eq_ignore_ascii_case(name)
                            && port.unwrap_or(origin.default_port()) == origin.port
                    }))
        });
        if allowed {
            Ok(())
        } else {
            forbidden(format!(
                "Forbidden: the Origin header {origin:?} is not allowed"
            ))
        }
    }
}

/// An `Origin` value, read strictly.
struct Origin<'a> {
    scheme: String,
    host: &'a str,
    port: u16,
}

impl<'a> Origin<'a> {
    /// `scheme://host[:port]` exactly; `None` for `null` and anything else.
    fn parse(origin: &'a str) -> Option<Self> {
        let (scheme, authority) = origin.split_once("://")?;
        let scheme_ok = !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
        if !scheme_ok || authority.contains(['/', '?', '#', '@']) {
            return None;
        }
        let (host, port) = host_and_port(authority)?;
        let mut origin = Origin {
            scheme: scheme.to_ascii_lowercase(),
            host,
            port: 0,
        };
        origin.port = match port {
            Some(port) => port,
            None => origin.default_port(),
        };
        Some(origin)
    }

    /// The port of the scheme (80 for `http`, 443 for `https`, 0 for others).
    fn default_port(&self) -> u16 {
        match self.scheme.as_str() {
            "http" | "ws" => 80,
            "https" | "wss" => 443,
            _ => 0,
        }
    }
}

impl std::fmt::Display for Origin<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let host = self.host.to_ascii_lowercase();
        write!(f, "{}://{host}:{}", self.scheme, self.port)
    }
}

/// The host name and port of a `Host` value (`[::1]:8000` → `[::1]`, 8000; `localhost` →
/// `localhost`, none), read strictly: a name or a bracketed IPv6 address, then nothing or `:` and
/// a decimal port. `None` for anything else (`localhost:evil`, `[::1]junk`, an empty name).
fn host_and_port(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        match rest {
            "" => (name, None),
            _ => (name, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match host.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    (!name.is_empty()).then_some((name, port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: Option<&str>, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(host) = host {
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        }
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    fn passes(policy: &HostPolicy, host: Option<&str>, origin: Option<&str>) -> bool {
        match policy.check(&headers(host, origin)) {
            Ok(()) => true,
            Err((status, _)) => {
                assert_eq!(status, StatusCode::FORBIDDEN);
                false
            }
        }
    }

    #[test]
    fn loopback_hosts_and_the_servers_own_origin_pass() {
        let policy = HostPolicy::loopback();
        for (host, origin) in [
            ("127.0.0.1:8000", None),
            ("localhost:8000", Some("http://localhost:8000")),
            ("LOCALHOST:1", Some("https://localhost:1")),
            ("[::1]:9", Some("http://[::1]:9")),
            ("localhost", Some("http://localhost")),
            ("localhost:80", Some("http://localhost")),
            ("localhost", Some("https://localhost:443")),
        ] {
            assert!(passes(&policy, Some(host), origin), "{host} {origin:?}");
        }
    }

    #[test]
    fn other_hosts_and_origins_are_forbidden() {
        let policy = HostPolicy::loopback();
        for (host, origin) in [
            (Some("evil.example.com"), Some("http://evil.example.com")),
            (Some("127.0.0.1:8000"), Some("http://evil.example.com")),
            (Some("127.0.0.1.evil.com"), None),
            (None, None),
            (Some("localhost"), Some("null")),
            // The origin's port counts: another local application is another origin.
            (Some("localhost:8000"), Some("http://localhost:5173")),
            (Some("localhost:8000"), Some("http://localhost")),
            (Some("localhost:8000"), Some("http://127.0.0.1:8000")),
            // Read strictly: a port is decimal, and nothing follows an IPv6 address but a port.
            (Some("localhost:evil"), None),
            (Some("[::1]junk"), None),
            (Some("[::1]:"), None),
            (Some("localhost:"), None),
            (Some("localhost:99999"), None),
            (Some(":80"), None),
            (Some("localhost"), Some("http://localhost:evil")),
            (Some("localhost"), Some("http://[::1]junk")),
            (Some("localhost"), Some("http://localhost/path")),
            (Some("localhost"), Some("http://user@localhost")),
            (Some("localhost"), Some("://localhost")),
        ] {
            assert!(!passes(&policy, host, origin), "{host:?} {origin:?}");
        }
    }

    #[test]
    fn listed_hosts_and_origins_pass() {
        let policy = HostPolicy::hosts(["MCP.example.com"])
            .and_loopback()
            .allow_origins([
                "https://App.example.com",
                "http://localhost:5173",
                "nonsense",
            ]);
        assert!(passes(&policy, Some("mcp.example.com"), None));
        assert!(passes(&policy, Some("mcp.example.com:8443"), None));
        assert!(passes(&policy, Some("localhost:8000"), None));
        assert!(!passes(&policy, Some("other.example.com"), None));
        let page = |origin| passes(&policy, Some("mcp.example.com"), Some(origin));
        assert!(page("https://mcp.example.com"));
        assert!(page("https://app.example.com"));
        assert!(page("https://app.example.com:443"));
        assert!(page("http://localhost:5173"));
        assert!(!page("http://app.example.com"));
        assert!(!page("https://app.example.com:8443"));
        assert!(!page("http://localhost:5174"));
        assert!(!page("nonsense"));
    }

    #[test]
    fn any_host_still_checks_browser_origins() {
        let open = HostPolicy::any_host();
        assert!(!open.checks_host());
        assert!(passes(&open, Some("anything.example"), None));
        assert!(passes(&open, None, None));
        // With any Host, the server's "own" origin proves nothing: a rebinding page is
        // same-origin with its own name.
        assert!(!passes(
            &open,
            Some("evil.example"),
            Some("http://evil.example")
        ));
        let listed = HostPolicy::any_host().allow_origins(["https://app.example.com"]);
        assert!(passes(&listed, Some("x"), Some("https://app.example.com")));
        assert!(!passes(&listed, Some("x"), Some("https://evil.example")));
    }
}
