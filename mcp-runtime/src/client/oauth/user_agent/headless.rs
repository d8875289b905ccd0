//! [`Headless`]: a user agent that follows the authorization server's redirects itself, for
//! servers that approve without a user.

use std::fmt;

use axum::http::header;
use futures_util::future::BoxFuture;
use url::Url;

use super::{AuthError, UserAgent};

/// How many redirects [`Headless`] follows before giving up.
const MAX_REDIRECTS: usize = 10;

/// How much of a page [`Headless`] quotes in its error.
const MAX_BODY_CHARS: usize = 200;

/// A user agent without a user, for authorization servers that approve by themselves: test
/// servers, conformance mocks, machine-to-machine setups that still use the authorization
/// code flow.
///
/// [`authorize`](UserAgent::authorize) requests the authorization URL and follows the
/// redirects itself (relative `Location`s resolved against the current URL, at most 10 of
/// them) until one goes to the redirect URI (its `Location` starts with the redirect URI);
/// that one is returned as it is, without being requested. An authorization server that
/// answers anything else than a redirect (a login page, an error) needs a user: the call fails
/// with [`AuthError::Authorization`] quoting the status and the beginning of the page, and
/// [`LoopbackRedirect`](super::LoopbackRedirect) is the user agent to use.
///
/// The redirect URI is only a name here: nothing listens on it, so it can be any URI the
/// authorization server accepts.
///
/// ```no_run
/// use mcp_runtime::client::oauth::{Headless, UserAgent};
/// use url::Url;
///
/// # async fn run() -> Result<(), mcp_runtime::client::oauth::AuthError> {
/// let agent = Headless::new("http://localhost:3000/callback");
/// let authorization_url =
///     Url::parse("https://auth.test/authorize?response_type=code&client_id=c&state=s").unwrap();
/// let back = agent.authorize(&authorization_url).await?;
/// assert!(back.as_str().starts_with("http://localhost:3000/callback?"));
/// # Ok(())
/// # }
/// ```
pub struct Headless {
    redirect_uri: String,
    client: reqwest::Client,
}

impl Headless {
    /// A headless user agent announcing `redirect_uri`, with its own HTTP client (one that
    /// does not follow redirects).
    ///
    /// # Panics
    ///
    /// When the HTTP client cannot be built, as [`reqwest::Client::new`] does: the TLS backend
    /// cannot be initialized, or the resolver cannot load the system configuration.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("cannot build the HTTP client of the headless user agent");
        Headless {
            redirect_uri: redirect_uri.into(),
            client,
        }
    }

    /// Sends the requests with `client` (for its proxy, TLS roots, timeouts). It **must not
    /// follow redirects**: build it with
    /// `.redirect(reqwest::redirect::Policy::none())`, otherwise it goes to the redirect URI
    /// itself and the authorization response is lost.
    #[must_use]
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = client;
        self
    }

    async fn run(&self, authorization_url: &Url) -> Result<Url, AuthError> {
        let mut current = authorization_url.clone();
        for followed in 0..=MAX_REDIRECTS {
            let response = self.client.get(current.clone()).send().await.map_err(|e| {
                AuthError::Unreachable {
                    detail: format!(
                        "the authorization request to {} failed: {e}",
                        without_query(&current)
                    ),
                }
            })?;
            let status = response.status();
            let location = response.headers().get(header::LOCATION);
            if let (true, Some(location)) = (status.is_redirection(), location) {
                let location = location.to_str().map_err(|_| AuthError::Authorization {
                    detail: format!(
                        "{} redirected to a Location that is not text",
                        without_query(&current)
                    ),
                })?;
                let next = current
                    .join(location)
                    .map_err(|e| AuthError::Authorization {
                        detail: format!(
                            "{} redirected to {location:?}, which is not a URL: {e}",
                            without_query(&current)
                        ),
                    })?;
                if location.starts_with(&self.redirect_uri)
                    || next.as_str().starts_with(&self.redirect_uri)
                {
                    return Ok(next);
                }
                if followed == MAX_REDIRECTS {
                    break;
                }
                current = next;
                continue;
            }
            let body = response.text().await.unwrap_or_default();
            let body: String = body
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(MAX_BODY_CHARS)
                .collect();
            let quoted = if body.is_empty() {
                String::new()
            } else {
                format!(" ({body})")
            };
            return Err(AuthError::Authorization {
                detail: format!(
                    "{} answered {status}{quoted} instead of redirecting to {}: this \
                     authorization server needs a user to authorize; use LoopbackRedirect \
                     instead of Headless",
                    without_query(&current),
                    self.redirect_uri
                ),
            });
        }
        Err(AuthError::Authorization {
            detail: format!(
                "the authorization server redirected more than {MAX_REDIRECTS} times without \
                 reaching {}",
                self.redirect_uri
            ),
        })
    }
}

impl UserAgent for Headless {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a Url,
    ) -> BoxFuture<'a, Result<Url, AuthError>> {
        Box::pin(self.run(authorization_url))
    }
}

impl fmt::Debug for Headless {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Headless")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// `url` without its query and fragment, for messages: the query of an authorization request
/// is long, and says nothing the user needs.
fn without_query(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use axum::Router;
    use axum::extract::RawQuery;
    use axum::http::StatusCode;
    use axum::response::{Html, IntoResponse, Response};
    use axum::routing::get;
    use tokio::net::TcpListener;

    use super::*;

    /// An authorization server on 127.0.0.1 that approves at once through two redirects
    /// (`/authorize`), or shows a login page (`/login`).
    async fn approving_server() -> SocketAddr {
        async fn authorize(RawQuery(query): RawQuery) -> Response {
            // A relative Location, to be resolved against the current URL.
            let location = format!("/step2?{}", query.unwrap_or_default());
            (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
        }
        async fn step2(RawQuery(query): RawQuery) -> Response {
            let location = format!(
                "http://localhost:3000/callback?code=x&{}",
                query.unwrap_or_default()
            );
            (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
        }
        async fn login() -> Html<&'static str> {
            Html("<html>\n  <body>Log   in, please</body>\n</html>")
        }
        async fn forever() -> Response {
            (StatusCode::FOUND, [(header::LOCATION, "/forever")]).into_response()
        }

        let app = Router::new()
            .route("/authorize", get(authorize))
            .route("/step2", get(step2))
            .route("/login", get(login))
            .route("/forever", get(forever));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        addr
    }

    fn headless() -> Headless {
        Headless::new("http://localhost:3000/callback").http_client(
            reqwest::Client::builder()
                .no_proxy()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        )
    }

    #[tokio::test]
    async fn headless_follows_redirects_to_the_redirect_uri() {
        let addr = approving_server().await;
        let agent = headless();
        assert_eq!(agent.redirect_uri(), "http://localhost:3000/callback");
        assert_eq!(
            format!("{agent:?}"),
            "Headless { redirect_uri: \"http://localhost:3000/callback\", .. }"
        );
        let url = Url::parse(&format!("http://{addr}/authorize?state=st-9")).unwrap();
        let back = agent.authorize(&url).await.unwrap();
        assert_eq!(
            back.as_str(),
            "http://localhost:3000/callback?code=x&state=st-9"
        );
    }

    #[tokio::test]
    async fn headless_fails_on_a_page_that_needs_a_user() {
        let addr = approving_server().await;
        let url = Url::parse(&format!("http://{addr}/login?state=st-9")).unwrap();
        assert_eq!(
            headless().authorize(&url).await.unwrap_err(),
            AuthError::Authorization {
                detail: format!(
                    "http://{addr}/login answered 200 OK (<html> <body>Log in, please</body> \
                     </html>) instead of redirecting to http://localhost:3000/callback: this \
                     authorization server needs a user to authorize; use LoopbackRedirect \
                     instead of Headless"
                ),
            }
        );
    }

    #[tokio::test]
    async fn headless_gives_up_after_ten_redirects() {
        let addr = approving_server().await;
        let url = Url::parse(&format!("http://{addr}/forever?state=st-9")).unwrap();
        assert_eq!(
            headless().authorize(&url).await.unwrap_err(),
            AuthError::Authorization {
                detail: "the authorization server redirected more than 10 times without \
                         reaching http://localhost:3000/callback"
                    .to_owned(),
            }
        );
    }
}
