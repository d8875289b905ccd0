//! The authorization code flow of the test authorization server ([`Options::code_flow`]):
//! dynamic client registration, the authorization endpoint that approves at once, and the
//! `authorization_code` and `refresh_token` grants, with what the server saw of them.

use super::*;

/// One request to the authorization endpoint, as it arrived (valid or not).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizationRequest {
    /// The `client_id` parameter (empty when there was none).
    pub client_id: String,
    /// The `scope` parameter.
    pub scope: Option<String>,
    /// The (first) `resource` parameter (RFC 8707).
    pub resource: Option<String>,
    /// The `redirect_uri` parameter (empty when there was none).
    pub redirect_uri: String,
    /// The `prompt` parameter (OpenID Connect Core §3.1.2.1: `consent`, `login`, ...).
    pub prompt: Option<String>,
}

/// How a client authenticates at the token endpoint (RFC 7591's `token_endpoint_auth_method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ClientAuth {
    /// `client_secret_basic`: HTTP Basic, id and secret form-urlencoded (RFC 6749 §2.3.1).
    Basic,
    /// `client_secret_post`: `client_id` and `client_secret` in the form.
    Post,
    /// `none`: a public client, `client_id` in the form and no secret.
    None,
}

impl ClientAuth {
    pub(super) fn parse(method: &str) -> Option<Self> {
        match method {
            "client_secret_basic" => Some(ClientAuth::Basic),
            "client_secret_post" => Some(ClientAuth::Post),
            "none" => Some(ClientAuth::None),
            _ => None,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            ClientAuth::Basic => "client_secret_basic",
            ClientAuth::Post => "client_secret_post",
            ClientAuth::None => "none",
        }
    }
}

/// A client registered for the authorization code flow.
pub(super) struct Client {
    /// Its secret; `None` for a public client.
    pub(super) secret: Option<String>,
    pub(super) redirect_uris: Vec<String>,
    pub(super) auth: ClientAuth,
}

/// What an authorization code stands for, until it is exchanged (once).
pub(super) struct IssuedCode {
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    /// The S256 `code_challenge`.
    pub(super) challenge: String,
    pub(super) scope: Option<String>,
    pub(super) resource: String,
}

/// What a refresh token stands for, until it is used (once: it rotates) or revoked.
pub(super) struct RefreshGrant {
    pub(super) client_id: String,
    /// The scope of the authorization, which a refresh may narrow but never widen.
    pub(super) scope: Option<String>,
    pub(super) resource: String,
}

/// The state of the authorization code flow.
#[derive(Default)]
pub(super) struct CodeFlow {
    pub(super) clients: HashMap<String, Client>,
    pub(super) codes: HashMap<String, IssuedCode>,
    pub(super) refresh_tokens: HashMap<String, RefreshGrant>,
    /// Clients registered at the registration endpoint.
    pub(super) registrations: usize,
    pub(super) authorization_requests: Vec<AuthorizationRequest>,
    /// Requests to the token endpoint, per `grant_type`.
    pub(super) token_requests: HashMap<String, usize>,
}

/// The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 8707 and RFC 9207), approved for
/// [`CODE_FLOW_SUBJECT`] without asking anyone. An unknown client or a redirect URI it did not
/// register gets a `400` page (never a redirect); any other fault, a redirect with
/// `error=invalid_request`; success, a redirect with a fresh single-use `code`, the `state` and
/// the `iss`.
pub(super) fn authorize_code(shared: &Shared, query: &[(String, String)]) -> Response {
    let client_id = field(query, "client_id").unwrap_or_default().to_owned();
    let redirect_uri = field(query, "redirect_uri").unwrap_or_default().to_owned();
    let scope = field(query, "scope").map(str::to_owned);
    let resources = all_fields(query, "resource");
    let mut flow = shared.flow.lock().unwrap();
    flow.authorization_requests.push(AuthorizationRequest {
        client_id: client_id.clone(),
        scope: scope.clone(),
        resource: resources.first().map(|r| (*r).to_owned()),
        redirect_uri: redirect_uri.clone(),
        prompt: field(query, "prompt").map(str::to_owned),
    });
    let page = |reason: &str| {
        let body = format!("The authorization request is refused: {reason}.\n");
        let content_type = [(header::CONTENT_TYPE, "text/plain; charset=utf-8")];
        (StatusCode::BAD_REQUEST, content_type, body).into_response()
    };
    let Some(client) = flow.clients.get(&client_id) else {
        return page("the client is unknown");
    };
    if !client.redirect_uris.contains(&redirect_uri) {
        return page("the redirect_uri is not one the client registered");
    }
    let state = field(query, "state");
    // The answer to `redirect_uri`: `parameters`, then the state and the issuer.
    let redirect = |parameters: Vec<(&str, String)>| {
        let mut location = redirect_uri.clone();
        let mut separator = if location.contains('?') { '&' } else { '?' };
        let tail = [
            ("state", state.map(str::to_owned)),
            ("iss", Some(shared.issuer.clone())),
        ];
        let all = parameters
            .into_iter()
            .map(|(name, value)| (name, Some(value)))
            .chain(tail);
        for (name, value) in all {
            if let Some(value) = value {
                location.push(separator);
                location.push_str(name);
                location.push('=');
                location.push_str(&percent_encode(&value));
                separator = '&';
            }
        }
        (
            StatusCode::FOUND,
            [
                (header::LOCATION, location),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
        )
            .into_response()
    };
    let invalid = |description: &str| {
        redirect(vec![
            ("error", "invalid_request".to_owned()),
            ("error_description", description.to_owned()),
        ])
    };
    if field(query, "response_type") != Some("code") {
        return invalid("response_type must be code");
    }
    let Some(challenge) = field(query, "code_challenge").filter(|c| !c.is_empty()) else {
        return invalid("code_challenge is required (PKCE)");
    };
    if field(query, "code_challenge_method") != Some("S256") {
        return invalid("code_challenge_method must be S256");
    }
    let [resource] = resources[..] else {
        return invalid("exactly one resource (RFC 8707) is required");
    };
    let code = format!("code-{}", random_hex(16));
    let issued = IssuedCode {
        client_id,
        redirect_uri: redirect_uri.clone(),
        challenge: challenge.to_owned(),
        scope: scope.filter(|scope| !scope.is_empty()),
        resource: resource.to_owned(),
    };
    flow.codes.insert(code.clone(), issued);
    redirect(vec![("code", code)])
}

/// `POST {issuer}/register` (RFC 7591): `redirect_uris` required; `token_endpoint_auth_method`
/// `client_secret_basic` (the default), `client_secret_post` or `none` (a public client, without
/// a secret), as far as [`Options::token_endpoint_auth_methods`] offers them; `grant_types` among those the server supports (`authorization_code` by default).
/// `201` with the client's id, its secret unless public, and its metadata; `400`
/// `invalid_client_metadata` (or `invalid_redirect_uri`) otherwise.
pub(super) async fn register(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let refused = |error: &str, description: &str| {
        let body = json!({"error": error, "error_description": description});
        (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
    };
    let invalid = |description: &str| refused("invalid_client_metadata", description);
    let Ok(Value::Object(metadata)) = serde_json::from_slice::<Value>(&body) else {
        return invalid("the body must be a JSON object");
    };
    let redirect_uris: Vec<String> = match metadata.get("redirect_uris") {
        Some(Value::Array(uris)) if !uris.is_empty() => {
            let strings: Vec<String> = uris
                .iter()
                .filter_map(|uri| uri.as_str().map(str::to_owned))
                .collect();
            if strings.len() != uris.len() {
                return invalid("redirect_uris must be strings");
            }
            strings
        }
        _ => return invalid("redirect_uris is required: a non-empty array of URIs"),
    };
    if let Some(bad) = redirect_uris
        .iter()
        .find(|uri| !uri.contains("://") || uri.contains('#'))
    {
        return refused(
            "invalid_redirect_uri",
            &format!("{bad} is not an absolute URI without a fragment"),
        );
    }
    let offered = &shared.options.token_endpoint_auth_methods;
    let auth = match metadata.get("token_endpoint_auth_method") {
        None => Some(ClientAuth::Basic),
        Some(method) => method.as_str().and_then(ClientAuth::parse),
    };
    let Some(auth) = auth.filter(|auth| offered.iter().any(|m| m == auth.name())) else {
        return invalid(&format!(
            "token_endpoint_auth_method must be one of {}",
            offered.join(", ")
        ));
    };
    const GRANTS: [&str; 3] = ["authorization_code", "refresh_token", "client_credentials"];
    let grant_types: Vec<String> = match metadata.get("grant_types") {
        None => vec!["authorization_code".to_owned()],
        Some(Value::Array(grants)) => {
            let known: Vec<String> = grants
                .iter()
                .filter_map(Value::as_str)
                .filter(|grant| GRANTS.contains(grant))
                .map(str::to_owned)
                .collect();
            if known.len() != grants.len() {
                return invalid(
                    "grant_types must be among authorization_code, refresh_token and \
                     client_credentials",
                );
            }
            known
        }
        Some(_) => return invalid("grant_types must be an array"),
    };
    let client_name = match metadata.get("client_name") {
        None => None,
        Some(Value::String(name)) => Some(name.clone()),
        Some(_) => return invalid("client_name must be a string"),
    };
    let client_id = format!("client-{}", random_hex(8));
    let secret = (auth != ClientAuth::None).then(|| random_hex(16));
    let mut answer = json!({
        "client_id": client_id,
        "client_id_issued_at": now(),
        "redirect_uris": redirect_uris,
        "token_endpoint_auth_method": auth.name(),
        "grant_types": grant_types,
        "response_types": ["code"],
    });
    if let Some(secret) = &secret {
        answer["client_secret"] = json!(secret);
        answer["client_secret_expires_at"] = json!(0);
    }
    if let Some(name) = client_name {
        answer["client_name"] = json!(name);
    }
    let client = Client {
        secret,
        redirect_uris,
        auth,
    };
    {
        let mut flow = shared.flow.lock().unwrap();
        flow.clients.insert(client_id, client);
        flow.registrations += 1;
    }
    (
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(answer),
    )
        .into_response()
}

/// The `authorization_code` grant (RFC 6749 §4.1.3): the client authenticated as it registered,
/// the code its own and unused, the same `redirect_uri`, a `code_verifier` whose S256 is the
/// challenge (RFC 7636), and the `resource` of the authorization request (RFC 8707).
pub(super) fn code_grant(
    shared: &Shared,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Response {
    let mut flow = shared.flow.lock().unwrap();
    let client_id = match authenticate_client(&flow, headers, form) {
        Ok(client_id) => client_id,
        Err(why) => return described(StatusCode::UNAUTHORIZED, "invalid_client", &why),
    };
    let Some(code) = field(form, "code") else {
        return described(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "code is required",
        );
    };
    // Single use: the code is gone, whatever happens next.
    let Some(issued) = flow.codes.remove(code) else {
        return described(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "the code is unknown or was already used",
        );
    };
    let invalid_grant =
        |description: &str| described(StatusCode::BAD_REQUEST, "invalid_grant", description);
    if issued.client_id != client_id {
        return invalid_grant("the code was issued to another client");
    }
    if field(form, "redirect_uri") != Some(issued.redirect_uri.as_str()) {
        return invalid_grant("the redirect_uri is not the one of the authorization request");
    }
    let Some(verifier) = field(form, "code_verifier") else {
        return invalid_grant("code_verifier is required (PKCE)");
    };
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    if !well_formed || s256(verifier) != issued.challenge {
        return invalid_grant("the code_verifier does not match the code_challenge");
    }
    if all_fields(form, "resource") != [issued.resource.as_str()] {
        return described(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "the resource is not the one of the authorization request",
        );
    }
    let grant = RefreshGrant {
        client_id,
        scope: issued.scope.clone(),
        resource: issued.resource,
    };
    issue_tokens(shared, &mut flow, grant, issued.scope)
}

/// The `refresh_token` grant (RFC 6749 §6), with rotation: the client authenticated as it
/// registered, a refresh token of its own that is still current (each is good once), the
/// `resource` (when given) the one of the authorization, and a `scope` (when given) within it.
pub(super) fn refresh_grant(
    shared: &Shared,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Response {
    let mut flow = shared.flow.lock().unwrap();
    let client_id = match authenticate_client(&flow, headers, form) {
        Ok(client_id) => client_id,
        Err(why) => return described(StatusCode::UNAUTHORIZED, "invalid_client", &why),
    };
    let Some(token) = field(form, "refresh_token") else {
        return described(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "refresh_token is required",
        );
    };
    let invalid_grant = || {
        described(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            "the refresh token is unknown, already used or revoked",
        )
    };
    let Some(grant) = flow.refresh_tokens.get(token) else {
        return invalid_grant();
    };
    if grant.client_id != client_id {
        return invalid_grant();
    }
    let resources = all_fields(form, "resource");
    if !resources.is_empty() && resources != [grant.resource.as_str()] {
        return described(
            StatusCode::BAD_REQUEST,
            "invalid_target",
            "the resource is not the one of the authorization",
        );
    }
    let granted: Vec<&str> = grant
        .scope
        .as_deref()
        .unwrap_or_default()
        .split(' ')
        .collect();
    let scope = match field(form, "scope").filter(|scope| !scope.is_empty()) {
        None => grant.scope.clone(),
        Some(asked) if asked.split(' ').all(|s| granted.contains(&s)) => Some(asked.to_owned()),
        Some(_) => {
            return described(
                StatusCode::BAD_REQUEST,
                "invalid_scope",
                "the scope exceeds the one of the authorization",
            );
        }
    };
    let grant = flow.refresh_tokens.remove(token).expect("found above");
    issue_tokens(shared, &mut flow, grant, scope)
}

/// A token response for `grant`: an access token for its user, client and resource with
/// `scope`, and a new refresh token for `grant`.
pub(super) fn issue_tokens(
    shared: &Shared,
    flow: &mut CodeFlow,
    grant: RefreshGrant,
    scope: Option<String>,
) -> Response {
    let lifetime = shared.options.access_token_lifetime;
    let now = now();
    let mut claims = json!({
        "iss": shared.issuer,
        "sub": CODE_FLOW_SUBJECT,
        "client_id": grant.client_id,
        "aud": grant.resource,
        "exp": now + lifetime,
        "iat": now,
        "jti": random_hex(16),
    });
    if let Some(scope) = &scope {
        claims["scope"] = json!(scope);
    }
    let access_token = sign_access_token(shared, &claims);
    let refresh_token = format!("refresh-{}", random_hex(24));
    flow.refresh_tokens.insert(refresh_token.clone(), grant);
    let mut answer = json!({
        "access_token": access_token,
        "token_type": "Bearer",
        "expires_in": lifetime,
        "refresh_token": refresh_token,
    });
    if let Some(scope) = scope {
        answer["scope"] = json!(scope);
    }
    ([(header::CACHE_CONTROL, "no-store")], axum::Json(answer)).into_response()
}

/// The client of a request to the token endpoint, authenticated the way it registered: HTTP
/// Basic with form-urlencoded id and secret (RFC 6749 §2.3.1), `client_id` and `client_secret`
/// in the form, or (a public client) `client_id` alone. Anything else: why not, for the
/// `error_description` of a `401 invalid_client`.
pub(super) fn authenticate_client(
    flow: &CodeFlow,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Result<String, String> {
    let refused = |description: &str| Err(description.to_owned());
    let basic = match headers.get(header::AUTHORIZATION) {
        None => None,
        Some(value) => {
            let credentials = value
                .to_str()
                .ok()
                .and_then(|value| value.strip_prefix("Basic "))
                .and_then(|encoded| STANDARD.decode(encoded.trim()).ok())
                .and_then(|decoded| String::from_utf8(decoded).ok())
                .and_then(|credentials| {
                    let (id, secret) = credentials.split_once(':')?;
                    Some((percent_decode(id), percent_decode(secret)))
                });
            match credentials {
                Some(credentials) => Some(credentials),
                None => return refused("the Authorization header is not HTTP Basic id:secret"),
            }
        }
    };
    let form_id = field(form, "client_id");
    let form_secret = field(form, "client_secret");
    let client_id = match (&basic, form_id) {
        (Some((id, _)), Some(other)) if id != other => {
            return refused("the client_id of the form is not the one of the Authorization header");
        }
        (Some((id, _)), _) => id.clone(),
        (None, Some(id)) => id.to_owned(),
        (None, None) => return refused("the request names no client"),
    };
    let Some(client) = flow.clients.get(&client_id) else {
        return refused("the client is unknown");
    };
    let secret = client.secret.as_deref();
    let authenticated = match client.auth {
        ClientAuth::Basic => {
            form_secret.is_none()
                && basic
                    .as_ref()
                    .is_some_and(|(_, s)| Some(s.as_str()) == secret)
        }
        ClientAuth::Post => basic.is_none() && form_secret.is_some() && form_secret == secret,
        ClientAuth::None => basic.is_none() && form_secret.is_none(),
    };
    if !authenticated {
        return refused(&format!(
            "the client did not authenticate as it registered ({})",
            client.auth.name()
        ));
    }
    Ok(client_id)
}
