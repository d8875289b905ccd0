//! DNS-rebinding protection: the `Host` and `Origin` of every request are checked before anything
//! else happens.
//!
//! A web page on a hostile site can make a browser send requests to `localhost`, and with DNS
//! rebinding even read the answers. A server bound to a loopback address therefore accepts only
//! requests whose `Host` names a loopback host, and whose `Origin`, if present, does too; anything
//! else gets `403 Forbidden`. A deployment behind a proxy or on a public name lists the hosts and
//! origins it answers to.

use axum::http::{HeaderMap, StatusCode, header};

/// The names of the loopback interface.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Which `Host` and `Origin` values are accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostPolicy {
    /// Every host and origin (for servers that are not on loopback, or that check elsewhere).
    AllowAll,
    /// Only these host names (compared without the port, case-insensitively), for both `Host` and
    /// `Origin`.
    Hosts(Vec<String>),
}

impl HostPolicy {
    /// The loopback names: `localhost`, `127.0.0.1` and `[::1]`.
    pub fn loopback() -> Self {
        HostPolicy::loopback_and(Vec::<String>::new())
    }

    /// The loopback names and `extra` (host names of a proxy or a public name).
    pub fn loopback_and(extra: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let loopback = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned());
        HostPolicy::Hosts(loopback.chain(extra.into_iter().map(Into::into)).collect())
    }

    fn allows(&self, host: &str) -> bool {
        match self {
            HostPolicy::AllowAll => true,
            HostPolicy::Hosts(hosts) => hosts.iter().any(|h| h.eq_ignore_ascii_case(host)),
        }
    }

    /// Why the request's headers are refused, if they are.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        if matches!(self, HostPolicy::AllowAll) {
            return Ok(());
        }
        let forbidden = |message: String| Err((StatusCode::FORBIDDEN, message));
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        match host.and_then(host_name) {
            Some(name) if self.allows(name) => {}
            Some(_) => {
                return forbidden(format!(
                    "Forbidden: the Host header {:?} is not allowed",
                    host.unwrap_or_default()
                ));
            }
            None => return forbidden("Forbidden: the request has no valid Host header".into()),
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin
                .to_str()
                .ok()
                .and_then(origin_host)
                .is_some_and(|name| self.allows(name));
            if !allowed {
                return forbidden(format!(
                    "Forbidden: the Origin header {origin:?} is not allowed"
                ));
            }
        }
        Ok(())
    }
}

/// The host name of a `Host` value (`[::1]:8000` → `[::1]`, `localhost:3` → `localhost`), read
/// strictly: a name or a bracketed IPv6 address, then nothing or `:` and a decimal port. `None`
/// for anything else (`localhost:evil`, `[::1]junk`, an empty name).
fn host_name(host: &str) -> Option<&str> {
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
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    (port_ok && !name.is_empty()).then_some(name)
}

/// The host name of an `Origin` value (`http://localhost:8000` → `localhost`); `None` for `null`
/// and anything that is not exactly `scheme://host[:port]`.
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, authority) = origin.split_once("://")?;
    let scheme_ok = !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_ok || authority.contains(['/', '?', '#', '@']) {
        return None;
    }
    host_name(authority)
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

    #[test]
    fn loopback_hosts_and_origins_pass() {
        let policy = HostPolicy::loopback();
        for (host, origin) in [
            ("127.0.0.1:8000", None),
            ("localhost", Some("http://localhost:8000")),
            ("LOCALHOST:1", Some("https://127.0.0.1")),
            ("[::1]:9", Some("http://[::1]:9")),
        ] {
            assert!(
                policy.check(&headers(Some(host), origin)).is_ok(),
                "{host} {origin:?}"
            );
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
            // Read strictly: a port is decimal, and nothing follows an IPv6 address but a port.
            (Some("localhost:evil"), None),
            (Some("[::1]junk"), None),
            (Some("[::1]:"), None),
            (Some("localhost:"), None),
            (Some(":80"), None),
            (Some("localhost"), Some("http://localhost:evil")),
            (Some("localhost"), Some("http://[::1]junk")),
            (Some("localhost"), Some("http://localhost/path")),
            (Some("localhost"), Some("http://user@localhost")),
            (Some("localhost"), Some("://localhost")),
        ] {
            let err = policy.check(&headers(host, origin)).unwrap_err();
            assert_eq!(err.0, StatusCode::FORBIDDEN, "{host:?} {origin:?}");
        }
        let proxied = HostPolicy::loopback_and(["mcp.example.com"]);
        assert!(
            proxied
                .check(&headers(
                    Some("mcp.example.com"),
                    Some("https://mcp.example.com")
                ))
                .is_ok()
        );
        assert!(
            HostPolicy::AllowAll
                .check(&headers(Some("anything"), Some("x")))
                .is_ok()
        );
    }
}
