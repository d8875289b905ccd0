//! [`OAuth`]: how the client authorizes, given to
//! [`McpClientBuilder::oauth`](crate::client::McpClientBuilder::oauth).

use std::sync::Arc;

use super::credentials::{Assertion, ClientCredentials, EnterpriseIdp};
use super::store::{MemoryTokenStore, TokenStore};
use super::user_agent::UserAgent;

/// How many times a request may send the user back to the authorization server for more
/// scope (`403 insufficient_scope`) before it fails.
pub const DEFAULT_MAX_STEP_UPS: usize = 2;

/// How the client authorizes with a protected server: which grant, with which credentials,
/// where the tokens are kept. See the [module documentation](super) for the whole flow.
///
/// ```
/// use mcp_runtime::client::oauth::{Assertion, ClientCredentials, Headless, OAuth};
///
/// // A user signs in; the client registers itself (or uses its client ID metadata document).
/// let interactive = OAuth::authorization_code(Headless::new("http://127.0.0.1:28418/callback"))
///     .client_name("Notes agent")
///     .client_metadata_document("https://agent.example.com/oauth/client.json");
///
/// // A service with its own credentials, and DPoP-bound tokens.
/// let service = OAuth::client_credentials(ClientCredentials::with_secret("svc", "s3cret")).dpop();
///
/// // A workload that proves who it is with its platform's token.
/// let workload = OAuth::workload_identity(
///     ClientCredentials::public("billing-job"),
///     Assertion::from_file("/var/run/secrets/tokens/mcp"),
/// );
/// # drop((interactive, service, workload));
/// ```
#[derive(Clone)]
pub struct OAuth {
    pub(crate) grant: Grant,
    pub(crate) pre_registered: Vec<ClientCredentials>,
    pub(crate) metadata_document: Option<String>,
    pub(crate) client_name: String,
    pub(crate) offline_access: bool,
    pub(crate) dpop: bool,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) http: Option<reqwest::Client>,
    pub(crate) max_step_ups: usize,
}

/// The grant the client uses.
#[derive(Clone)]
pub(crate) enum Grant {
    /// A user signs in through `user_agent` (RFC 6749 §4.1, with PKCE).
    AuthorizationCode(Arc<dyn UserAgent>),
    /// The client's own credentials (RFC 6749 §4.4).
    ClientCredentials,
    /// A workload identity assertion (RFC 7523 §2.1).
    JwtBearer(Assertion),
    /// Enterprise-managed authorization (SEP-990).
    Enterprise(EnterpriseIdp),
}

impl OAuth {
    fn with_grant(grant: Grant) -> Self {
        OAuth {
            grant,
            pre_registered: Vec::new(),
            metadata_document: None,
            client_name: "MCP client".into(),
            offline_access: true,
            dpop: false,
            store: Arc::new(MemoryTokenStore::new()),
            http: None,
            max_step_ups: DEFAULT_MAX_STEP_UPS,
        }
    }

    /// A user authorizes the client in the authorization code flow, through `user_agent`
    /// (a [`LoopbackRedirect`](super::LoopbackRedirect) that opens their browser, say).
    pub fn authorization_code(user_agent: impl UserAgent) -> Self {
        OAuth::with_grant(Grant::AuthorizationCode(Arc::new(user_agent)))
    }

    /// The client authorizes as itself, with `credentials` (the client credentials grant of
    /// the `oauth-client-credentials` extension): for services and jobs without a user.
    pub fn client_credentials(credentials: ClientCredentials) -> Self {
        OAuth::with_grant(Grant::ClientCredentials).pre_registered(credentials)
    }

    /// The client authorizes as the workload it runs as (workload identity federation): it
    /// presents `assertion`, a JWT its platform issued, in the JWT bearer grant (RFC 7523),
    /// identifying itself as `client`. A refused assertion (`invalid_grant`,
    /// `invalid_scope`, `unauthorized_client`) fails the request: the client never retries it
    /// or falls back to another grant.
    pub fn workload_identity(client: ClientCredentials, assertion: Assertion) -> Self {
        OAuth::with_grant(Grant::JwtBearer(assertion)).pre_registered(client)
    }

    /// Enterprise-managed authorization (SEP-990): the client exchanges the user's ID token at
    /// the enterprise's identity provider `idp` for an identity assertion grant, then presents
    /// it to the MCP server's authorization server, where it is known as `client`.
    pub fn enterprise(client: ClientCredentials, idp: EnterpriseIdp) -> Self {
        OAuth::with_grant(Grant::Enterprise(idp)).pre_registered(client)
    }

    /// Credentials the client was registered with beforehand. They are used with the
    /// authorization server they are [for](ClientCredentials::for_issuer) (any, when they do
    /// not say); call it once per authorization server.
    pub fn pre_registered(mut self, credentials: ClientCredentials) -> Self {
        self.pre_registered.push(credentials);
        self
    }

    /// The HTTPS URL of the client's metadata document, used as its client id at
    /// authorization servers that accept client ID metadata documents
    /// (`client_id_metadata_document_supported`), instead of registering.
    pub fn client_metadata_document(mut self, url: impl Into<String>) -> Self {
        self.metadata_document = Some(url.into());
        self
    }

    /// The name the client registers with (`client_name`), which authorization servers show
    /// the user. `MCP client` unless set.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Whether to ask for a refresh token (`offline_access`, when the authorization server
    /// lists it) in the authorization code flow. On by default. An authorization request that
    /// asks for `offline_access` also carries `prompt=consent`, without which OpenID providers
    /// grant no refresh token (OpenID Connect Core §11): the user is asked to approve at each
    /// sign-in, which the refresh token then makes rare.
    pub fn offline_access(mut self, wanted: bool) -> Self {
        self.offline_access = wanted;
        self
    }

    /// Binds the tokens to a key of the client (DPoP, RFC 9449) when the authorization server
    /// supports it (ES256 in `dpop_signing_alg_values_supported`): a stolen token is useless
    /// without the key. Every request then carries a fresh proof.
    pub fn dpop(mut self) -> Self {
        self.dpop = true;
        self
    }

    /// Keeps the registrations and tokens in `store` (a [`MemoryTokenStore`] unless set).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Talks to authorization servers with `client` (the connection's own client unless
    /// set). It must not follow redirects to other hosts with credentials.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// How many times one request may ask the user for more scope
    /// ([`DEFAULT_MAX_STEP_UPS`] unless set).
    pub fn max_step_ups(mut self, times: usize) -> Self {
        self.max_step_ups = times;
        self
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode(agent) => {
                format!("authorization_code via {}", agent.redirect_uri())
            }
            Grant::ClientCredentials => "client_credentials".into(),
            Grant::JwtBearer(_) => "jwt-bearer (workload identity)".into(),
            Grant::Enterprise(idp) => format!("enterprise via {}", idp.token_endpoint),
        };
        f.debug_struct("OAuth")
            .field("grant", &grant)
            .field("pre_registered", &self.pre_registered)
            .field("metadata_document", &self.metadata_document)
            .field("client_name", &self.client_name)
            .field("offline_access", &self.offline_access)
            .field("dpop", &self.dpop)
            .field("max_step_ups", &self.max_step_ups)
            .finish_non_exhaustive()
    }
}
