//! Signing in to a protected server: on a `401`, `mcp` runs the MCP authorization flow in the
//! user's browser, with the redirect received on `127.0.0.1:28418`, and keeps the tokens per
//! server in the user's configuration directory (`$XDG_CONFIG_HOME/mcp/tokens.json`, or
//! `~/.config/mcp/tokens.json`; `%APPDATA%\mcp\tokens.json` on Windows), written with mode
//! 0600.
//!
//! `mcp` registers itself with the authorization server, unless the user gives it a client
//! registered there beforehand ([`ClientOptions`]): what providers without dynamic client
//! registration need.

use std::path::PathBuf;

use anyhow::{Context, bail};
use mcp_runtime::client::ClientError;
use mcp_runtime::client::oauth::{
    AuthError, BoxFuture, ClientCredentials, FileTokenStore, LoopbackRedirect, OAuth, Secret, Url,
    UserAgent,
};

/// The loopback port the authorization server sends the browser back to: fixed, so that a
/// registration kept from an earlier run names the same redirect URI; below the ephemeral ports
/// of Linux (32768 and up), macOS and Windows (49152 and up), so that no outgoing connection of
/// another program holds it by chance.
const PORT: u16 = 28418;

/// The OAuth client `mcp` signs in as, when it was registered beforehand (`--client-id`, ...).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ClientOptions {
    /// Sign in as this OAuth client, registered beforehand at the server's authorization
    /// server with the redirect URI http://127.0.0.1:28418/callback (for authorization
    /// servers that do not let mcp register itself).
    #[arg(long, global = true, env = "MCP_CLIENT_ID", value_name = "ID")]
    pub client_id: Option<String>,
    /// The secret of the --client-id client. Other local users can read a command line: prefer
    /// the MCP_CLIENT_SECRET variable or --client-secret-file.
    #[arg(
        long,
        global = true,
        env = "MCP_CLIENT_SECRET",
        hide_env_values = true,
        allow_hyphen_values = true,
        value_name = "SECRET"
    )]
    pub client_secret: Option<Secret>,
    /// Read the secret of the --client-id client from this file (its first line).
    #[arg(long, global = true, value_name = "FILE")]
    pub client_secret_file: Option<PathBuf>,
}

impl ClientOptions {
    /// The credentials given, if any.
    fn credentials(&self) -> anyhow::Result<Option<ClientCredentials>> {
        let secret = match (&self.client_secret, &self.client_secret_file) {
            (Some(_), Some(_)) => bail!(
                "the client secret is given twice, with --client-secret or MCP_CLIENT_SECRET and \
                 with --client-secret-file: keep one"
            ),
            (Some(secret), None) => Some(secret.clone()),
            (None, Some(path)) => Some(read_secret(path)?),
            (None, None) => None,
        };
        Ok(match (&self.client_id, secret) {
            (Some(id), Some(secret)) => Some(ClientCredentials::with_secret(id.clone(), secret)),
            (Some(id), None) => Some(ClientCredentials::public(id.clone())),
            (None, Some(_)) => bail!(
                "a client secret needs its client: give the client's ID with --client-id or \
                 MCP_CLIENT_ID"
            ),
            (None, None) => None,
        })
    }
}

/// The secret in the first line of the file at `path`.
fn read_secret(path: &std::path::Path) -> anyhow::Result<Secret> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the client secret from {}", path.display()))?;
    // Without its line ending; spaces may belong to a secret (RFC 6749, Appendix A.2).
    let secret = text.lines().next().unwrap_or_default();
    if secret.is_empty() {
        bail!(
            "{} holds no client secret: its first line is empty",
            path.display()
        );
    }
    Ok(Secret::new(secret))
}

/// How `mcp` authorizes: as the pre-registered `client` when there is one.
pub fn oauth(client: &ClientOptions) -> anyhow::Result<OAuth> {
    let mut oauth = OAuth::authorization_code(Browser)
        .client_name("mcp (the MCP SDK for Rust's command-line tool)")
        .token_store(FileTokenStore::new(token_file()?));
    if let Some(credentials) = client.credentials()? {
        oauth = oauth.pre_registered(credentials);
    }
    Ok(oauth)
}

/// `error` in the terms of `mcp`'s user: an authorization server where `mcp` cannot register
/// itself is one where the user gives it a client, and the message says how.
pub fn explain(error: anyhow::Error) -> anyhow::Error {
    let unavailable =
        |cause: &(dyn std::error::Error + 'static)| match cause.downcast_ref::<ClientError>() {
            Some(ClientError::Authorization {
                error: AuthError::RegistrationUnavailable { issuer },
                ..
            }) => Some(issuer.clone()),
            _ => None,
        };
    let Some(issuer) = error.chain().find_map(unavailable) else {
        return error;
    };
    let mut said: Vec<String> = error
        .chain()
        .take_while(|cause| unavailable(*cause).is_none())
        .map(ToString::to_string)
        .collect();
    said.push(format!(
        "the authorization server {issuer} offers no dynamic client registration, so mcp \
         cannot register itself there: register a client there with the redirect URI {}, then \
         give its ID with --client-id or MCP_CLIENT_ID, and its secret, if it has one, in \
         MCP_CLIENT_SECRET or with --client-secret-file",
        redirect_uri()
    ));
    anyhow::anyhow!(said.join(": "))
}

/// Where the authorization server sends the browser back to.
fn redirect_uri() -> String {
    format!("http://127.0.0.1:{PORT}/callback")
}

/// Where the tokens are kept.
fn token_file() -> anyhow::Result<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("APPDATA").map(PathBuf::from))
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .context("no configuration directory to keep tokens in: set XDG_CONFIG_HOME or HOME")?;
    Ok(base.join("mcp").join("tokens.json"))
}

/// The user's browser, with the redirect received on the loopback port: the port is taken
/// only while the user signs in.
struct Browser;

impl UserAgent for Browser {
    fn redirect_uri(&self) -> String {
        redirect_uri()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a Url,
    ) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(async move {
            let browser =
                LoopbackRedirect::bind(PORT)
                    .await
                    .map_err(|error| AuthError::Authorization {
                        detail: format!(
                            "cannot receive the redirect on 127.0.0.1:{PORT} ({error}); is another \
                         mcp signing in?"
                        ),
                    })?;
            browser.authorize(authorization_url).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(id: Option<&str>, secret: Option<&str>, file: Option<PathBuf>) -> ClientOptions {
        ClientOptions {
            client_id: id.map(str::to_owned),
            client_secret: secret.map(Secret::new),
            client_secret_file: file,
        }
    }

    #[test]
    fn a_client_is_its_id_and_at_most_one_secret_which_never_shows() {
        let given = options(Some("mcp-cli"), Some("s3cr3t"), None);
        assert_eq!(
            format!("{given:?}"),
            "ClientOptions { client_id: Some(\"mcp-cli\"), client_secret: \
             Some(Secret([redacted])), client_secret_file: None }"
        );
        let credentials = given.credentials().unwrap().unwrap();
        assert_eq!(
            format!("{credentials:?}"),
            "ClientCredentials { client_id: \"mcp-cli\", authentication: \"secret\", issuer: None }"
        );
        let public = options(Some("mcp-cli"), None, None).credentials().unwrap();
        assert_eq!(
            format!("{public:?}"),
            "Some(ClientCredentials { client_id: \"mcp-cli\", authentication: \"none\", issuer: \
             None })"
        );
        assert!(options(None, None, None).credentials().unwrap().is_none());

        let error = |options: ClientOptions| options.credentials().unwrap_err().to_string();
        assert_eq!(
            error(options(None, Some("s3cr3t"), None)),
            "a client secret needs its client: give the client's ID with --client-id or \
             MCP_CLIENT_ID"
        );
        assert_eq!(
            error(options(Some("mcp-cli"), Some("s3cr3t"), Some("/s".into()))),
            "the client secret is given twice, with --client-secret or MCP_CLIENT_SECRET and \
             with --client-secret-file: keep one"
        );
    }

    #[test]
    fn a_secret_file_gives_its_first_line() {
        let dir = std::env::temp_dir().join(format!("mcp-cli-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("secret");
        std::fs::write(&file, " s3 cr3t \r\nsecond line\n").unwrap();
        assert_eq!(read_secret(&file).unwrap().expose(), " s3 cr3t ");
        std::fs::write(&file, "\n").unwrap();
        assert_eq!(
            read_secret(&file).unwrap_err().to_string(),
            format!(
                "{} holds no client secret: its first line is empty",
                file.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            format!("{:#}", read_secret(&file).unwrap_err()),
            format!(
                "cannot read the client secret from {}: No such file or directory (os error 2)",
                file.display()
            )
        );
    }
}
