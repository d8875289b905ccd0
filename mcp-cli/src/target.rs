//! The server a command talks to: a URL (`http://127.0.0.1:8000/mcp`), or a program to start,
//! given after `--` (`mcp list tools -- cargo run -p my-server`), and how to connect to it.

use std::time::Duration;

use anyhow::{Context, bail};
use mcp_runtime::client::{McpClient, McpClientBuilder};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::implementation::Implementation;
use mcp_runtime::protocol::logging::LoggingLevel;

/// Where the server is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A Streamable HTTP endpoint.
    Http(String),
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

impl Target {
    /// The target of a command whose positional arguments are `positionals` and whose
    /// arguments after `--` are `command`: the program when there is one, else the first
    /// positional argument, which must be a URL. Returns the target and the positionals left.
    pub fn take(
        mut positionals: Vec<String>,
        command: Vec<String>,
    ) -> anyhow::Result<(Target, Vec<String>)> {
        if let Some((program, args)) = command.split_first() {
            let target = Target::Stdio {
                program: program.clone(),
                args: args.to_vec(),
            };
            return Ok((target, positionals));
        }
        if positionals.is_empty() {
            bail!(
                "no server given: name its URL (http://127.0.0.1:8000/mcp) or its command after \
                 `--` (-- ./my-server --stdio)"
            );
        }
        let url = positionals.remove(0);
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!(
                "{url:?} is not a server: give an http(s) URL, or the command that starts the \
                 server after `--`"
            );
        }
        Ok((Target::Http(url), positionals))
    }
}

/// How to connect.
#[derive(Clone, Debug, Default)]
pub struct Connection {
    /// Extra HTTP headers (`Name: value`).
    pub headers: Vec<String>,
    /// The revision to speak, instead of detecting the server's.
    pub protocol_version: Option<String>,
    /// How long each request may take.
    pub timeout: Option<Duration>,
    /// Whether to declare that this client renders MCP Apps.
    pub apps: bool,
    /// The OAuth client to sign in as, when it was registered beforehand.
    pub client: crate::auth::ClientOptions,
    /// Environment variables of a server program, besides those of `mcp`'s own environment.
    pub env: Vec<(String, String)>,
}

impl Connection {
    /// The revision asked for with `--protocol-version`, if any.
    pub fn protocol_version(&self) -> anyhow::Result<Option<ProtocolVersion>> {
        let Some(name) = &self.protocol_version else {
            return Ok(None);
        };
        let version = ProtocolVersion::from_name(name).with_context(|| {
            format!(
                "unknown protocol version {name:?}: use 2024-11-05, 2025-03-26, 2025-06-18, \
                 2025-11-25 or 2026-07-28"
            )
        })?;
        Ok(Some(version))
    }

    /// The headers given with `-H`.
    pub fn header_map(&self) -> anyhow::Result<http::HeaderMap> {
        let mut headers = http::HeaderMap::new();
        for header in &self.headers {
            let (name, value) = header
                .split_once(':')
                .with_context(|| format!("the header {header:?} is not `Name: value`"))?;
            let name = http::HeaderName::from_bytes(name.trim().as_bytes())
                .with_context(|| format!("{:?} is not a header name", name.trim()))?;
            let value = http::HeaderValue::from_str(value.trim())
                .with_context(|| format!("the value of {name} is not a header value"))?;
            headers.append(name, value);
        }
        Ok(headers)
    }

    /// Connects to `target`.
    pub async fn connect(&self, target: &Target) -> anyhow::Result<McpClient> {
        let builder = McpClient::builder(Implementation::new("mcp", env!("CARGO_PKG_VERSION")))
            .elicitation(crate::interact::elicit)
            // The server's log messages show while a tool runs (2026-07-28 asks for them in each
            // request; a handshake-era session sets its level once connected).
            .log_level(LoggingLevel::Info);
        self.connect_with(builder, target, true).await
    }

    /// Connects to `target` with `builder`, set up as these options say (the request timeout
    /// only when `timed`).
    pub async fn connect_with(
        &self,
        mut builder: McpClientBuilder,
        target: &Target,
        timed: bool,
    ) -> anyhow::Result<McpClient> {
        if let (Some(timeout), true) = (self.timeout, timed) {
            builder = builder.request_timeout(timeout);
        }
        if let Some(version) = self.protocol_version()? {
            builder = builder.protocol_version(version);
        }
        if self.apps {
            builder = builder.apps();
        }
        match target {
            Target::Http(url) => {
                let headers = self.header_map()?;
                // A token given with -H is the user's choice; otherwise a 401 signs the user in.
                if !headers.contains_key(http::header::AUTHORIZATION) {
                    builder = builder.oauth(crate::auth::oauth(&self.client)?);
                }
                builder
                    .http_headers(headers)
                    .connect_http(url.clone())
                    .await
                    .with_context(|| format!("cannot connect to {url}"))
            }
            Target::Stdio { program, args } => {
                if !self.headers.is_empty() {
                    bail!("-H sets HTTP headers; a server on stdio has none");
                }
                let mut command = tokio::process::Command::new(program);
                command
                    .args(args)
                    .envs(self.env.iter().map(|(name, value)| (name, value)))
                    .kill_on_drop(true);
                builder
                    .connect_stdio(command)
                    .await
                    .with_context(|| format!("cannot start {program}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_command_after_the_dashes_is_the_target() {
        let (target, rest) =
            Target::take(strings(&["add"]), strings(&["./srv", "--stdio"])).unwrap();
        assert_eq!(
            target,
            Target::Stdio {
                program: "./srv".into(),
                args: strings(&["--stdio"])
            }
        );
        assert_eq!(rest, strings(&["add"]));
        let (target, rest) =
            Target::take(strings(&["http://127.0.0.1:1/mcp", "add"]), vec![]).unwrap();
        assert_eq!(target, Target::Http("http://127.0.0.1:1/mcp".into()));
        assert_eq!(rest, strings(&["add"]));
        let error = Target::take(strings(&["add"]), vec![]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "\"add\" is not a server: give an http(s) URL, or the command that starts the server after `--`"
        );
    }
}
