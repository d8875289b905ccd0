//! The names a mounted server's items take: tools and prompts `files_read` for the server
//! mounted as `files` and its `read`; resource URIs and templates with the prefix as the first
//! segment after the scheme, `file://files/tmp/a.txt` for `file:///tmp/a.txt`, so that they stay
//! unique and keep their scheme (as FastMCP's `mount` names them).

/// The prefix of a mounted server, or none for a server proxied as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Namespace {
    prefix: Option<String>,
}

impl Namespace {
    /// No namespace: the upstream's names as they are.
    pub(super) const fn none() -> Self {
        Namespace { prefix: None }
    }

    /// The namespace `prefix`.
    pub(super) fn new(prefix: impl Into<String>) -> Self {
        Namespace {
            prefix: Some(prefix.into()),
        }
    }

    /// The prefix, if any.
    pub(super) fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }

    /// The name of the upstream's tool or prompt `name` here.
    pub(super) fn name(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{name}"),
            None => name.to_owned(),
        }
    }

    /// The upstream's name for the tool or prompt called `name` here, if it is one of the
    /// upstream's.
    pub(super) fn upstream_name<'a>(&self, name: &'a str) -> Option<&'a str> {
        match &self.prefix {
            Some(prefix) => name.strip_prefix(prefix.as_str())?.strip_prefix('_'),
            None => Some(name),
        }
    }

    /// The URI (or URI template) here of the upstream's `uri`: the prefix goes first after
    /// `scheme://`. A URI without `://` (`urn:x`) becomes `prefix+urn:x`.
    pub(super) fn uri(&self, uri: &str) -> String {
        let Some(prefix) = &self.prefix else {
            return uri.to_owned();
        };
        match uri.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{prefix}/{rest}"),
            None => format!("{prefix}+{uri}"),
        }
    }

    /// The upstream's URI for `uri` here, if it is under this namespace.
    pub(super) fn upstream_uri(&self, uri: &str) -> Option<String> {
        let Some(prefix) = &self.prefix else {
            return Some(uri.to_owned());
        };
        if let Some(opaque) = uri
            .strip_prefix(prefix.as_str())
            .and_then(|u| u.strip_prefix('+'))
        {
            return Some(opaque.to_owned());
        }
        let (scheme, rest) = uri.split_once("://")?;
        let rest = rest.strip_prefix(prefix.as_str())?.strip_prefix('/')?;
        Some(format!("{scheme}://{rest}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_take_the_prefix_and_give_it_back() {
        let files = Namespace::new("files");
        assert_eq!(files.name("read"), "files_read");
        assert_eq!(files.upstream_name("files_read"), Some("read"));
        assert_eq!(files.upstream_name("notes_read"), None);
        for (upstream, here) in [
            ("file:///tmp/a.txt", "file://files//tmp/a.txt"),
            (
                "test://static/resource/{id}",
                "test://files/static/resource/{id}",
            ),
            ("urn:isbn:1", "files+urn:isbn:1"),
        ] {
            assert_eq!(files.uri(upstream), here);
            assert_eq!(files.upstream_uri(here).as_deref(), Some(upstream));
        }
        assert_eq!(files.upstream_uri("file://notes/a"), None);
        let plain = Namespace::none();
        assert_eq!(plain.name("read"), "read");
        assert_eq!(plain.uri("file:///a"), "file:///a");
        assert_eq!(
            plain.upstream_uri("file:///a").as_deref(),
            Some("file:///a")
        );
    }
}
