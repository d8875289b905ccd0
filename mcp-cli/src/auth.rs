//! Signing in to a protected server: on a `401`, `mcp` runs the MCP authorization flow in the
//! user's browser, with the redirect received on `127.0.0.1:33418`, and keeps the tokens per
//! server in the user's configuration directory (`$XDG_CONFIG_HOME/mcp/tokens.json`, or
//! `~/.config/mcp/tokens.json`; `%APPDATA%\mcp\tokens.json` on Windows), written with mode
//! 0600.

use std::path::PathBuf;

use anyhow::Context;
use mcp_runtime::client::oauth::{
    AuthError, BoxFuture, FileTokenStore, LoopbackRedirect, OAuth, Url, UserAgent,
};

/// The loopback port the authorization server sends the browser back to: fixed, so that a
/// registration kept from an earlier run names the same redirect URI.
const PORT: u16 = 33418;

/// How `mcp` authorizes.
pub fn oauth() -> anyhow::Result<OAuth> {
    Ok(OAuth::authorization_code(Browser)
        .client_name("mcp (the MCP SDK for Rust's command-line tool)")
        .token_store(FileTokenStore::new(token_file()?)))
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
        format!("http://127.0.0.1:{PORT}/callback")
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
