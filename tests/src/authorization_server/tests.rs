//! The test authorization server's own checks: PKCE's S256, form encoding, and the code flow's
//! refusals.

use super::*;

#[test]
fn the_s256_challenge_is_the_one_of_rfc_7636() {
    // RFC 7636, Appendix B.
    assert_eq!(
        s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    );
    assert_eq!(percent_decode(&percent_encode("a+b c/é")), "a+b c/é");
}

const REDIRECT: &str = "http://127.0.0.1:9/callback";
const RESOURCE: &str = "http://127.0.0.1:8/mcp";
// RFC 7636, Appendix B.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A client that does not follow redirects.
fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The status and JSON body of `request`.
async fn answer(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `GET /authorize` with `query`: the status, and the Location (`None` without one).
async fn authorize_with(
    server: &AuthorizationServer,
    query: &[(&str, &str)],
) -> (u16, Option<String>) {
    let query: Vec<String> = query
        .iter()
        .map(|(name, value)| format!("{name}={}", percent_encode(value)))
        .collect();
    let url = format!("{}?{}", server.authorization_endpoint(), query.join("&"));
    let response = http().get(url).send().await.unwrap();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|value| value.to_str().unwrap().to_owned());
    (response.status().as_u16(), location)
}

/// The query of a valid authorization request of `client_id` (with `scope`).
fn valid_request<'a>(client_id: &'a str, scope: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("scope", scope),
        ("state", "xyz"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("resource", RESOURCE),
    ]
}

/// A valid authorization request of `client_id` (with `scope`), whose code the test returns.
async fn code_for(server: &AuthorizationServer, client_id: &str, scope: &str) -> String {
    let (status, location) = authorize_with(server, &valid_request(client_id, scope)).await;
    assert_eq!(status, 302);
    let location = location.unwrap();
    let query = location
        .strip_prefix(&format!("{REDIRECT}?"))
        .unwrap_or_else(|| panic!("{location}"));
    let pairs = form_decode(query.as_bytes());
    let code = field(&pairs, "code").unwrap().to_owned();
    assert_eq!(
        pairs,
        [
            ("code".to_owned(), code.clone()),
            ("state".to_owned(), "xyz".to_owned()),
            ("iss".to_owned(), server.issuer().to_owned()),
        ]
    );
    code
}

/// The form of the exchange of `code`, with `verifier`, for `resource` (no client
/// authentication).
fn exchange<'a>(code: &'a str, verifier: &'a str, resource: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
        ("code_verifier", verifier),
        ("resource", resource),
    ]
}

/// The server's metadata (RFC 8414).
async fn metadata(server: &AuthorizationServer) -> Value {
    reqwest::get(format!(
        "{}/.well-known/oauth-authorization-server",
        server.url()
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap()
}

/// Checks that `server`, whose metadata is `metadata`, offers no dynamic client registration:
/// the metadata names no endpoint, and there is none.
async fn assert_registers_nobody(server: &AuthorizationServer, metadata: &Value) {
    assert_eq!(metadata.get("registration_endpoint"), None);
    let registered = http()
        .post(server.registration_endpoint())
        .json(&json!({"redirect_uris": [REDIRECT]}))
        .send()
        .await
        .unwrap();
    assert_eq!(registered.status().as_u16(), 404);
}

fn error(error: &str, description: &str) -> Value {
    json!({"error": error, "error_description": description})
}

#[tokio::test]
async fn without_the_code_flow_the_server_offers_client_credentials_only() {
    let server = AuthorizationServer::start().await;
    let metadata = metadata(&server).await;
    assert_eq!(
        metadata["grant_types_supported"],
        json!(["client_credentials"])
    );
    assert_registers_nobody(&server, &metadata).await;
    let (status, location) =
        authorize_with(&server, &[("response_type", "code"), ("client_id", "x")]).await;
    assert_eq!((status, location), (400, None));
    assert_eq!(server.authorization_requests().len(), 0);
}

#[tokio::test]
async fn only_the_offered_client_authentication_methods_register() {
    let server = AuthorizationServer::start_with(
        Options::default()
            .code_flow()
            .token_endpoint_auth_methods(["client_secret_basic"]),
    )
    .await;
    let metadata: Value =
        reqwest::get(format!("{}/.well-known/openid-configuration", server.url()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(
        metadata["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic"])
    );
    let register = |method: &str| {
        let body = json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method});
        answer(http().post(server.registration_endpoint()).json(&body))
    };
    let refused = (
        400,
        error(
            "invalid_client_metadata",
            "token_endpoint_auth_method must be one of client_secret_basic",
        ),
    );
    assert_eq!(register("none").await, refused);
    assert_eq!(register("client_secret_post").await, refused);
    let (status, registered) = register("client_secret_basic").await;
    assert_eq!(status, 201);
    assert_eq!(registered["client_secret"].as_str().map(str::len), Some(32));
    assert_eq!(server.registrations(), 1);
}

#[tokio::test]
async fn the_code_flow_registers_authorizes_exchanges_and_rotates() {
    let server = AuthorizationServer::start_with(
        Options::default()
            .code_flow()
            .access_token_lifetime(5)
            .scopes_supported(["notes:read", "notes:write", "offline_access"]),
    )
    .await;
    let issuer = server.issuer().to_owned();
    let metadata = metadata(&server).await;
    assert_eq!(
        metadata["registration_endpoint"],
        json!(format!("{issuer}/register"))
    );
    assert_eq!(
        metadata["grant_types_supported"],
        json!(["authorization_code", "refresh_token", "client_credentials"])
    );
    assert_eq!(
        metadata["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic", "client_secret_post", "none"])
    );
    assert_eq!(
        metadata["authorization_response_iss_parameter_supported"],
        json!(true)
    );
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(metadata["response_types_supported"], json!(["code"]));
    assert_eq!(
        metadata["scopes_supported"],
        json!(["notes:read", "notes:write", "offline_access"])
    );

    // Registration: refused without redirect URIs or with an unknown method.
    let register = |body: Value| answer(http().post(server.registration_endpoint()).json(&body));
    let invalid = |description: &str| (400, error("invalid_client_metadata", description));
    assert_eq!(
        register(json!({"client_name": "x"})).await,
        invalid("redirect_uris is required: a non-empty array of URIs")
    );
    assert_eq!(
        register(json!({"redirect_uris": []})).await,
        invalid("redirect_uris is required: a non-empty array of URIs")
    );
    assert_eq!(
        register(json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "tls"})).await,
        invalid(
            "token_endpoint_auth_method must be one of client_secret_basic, \
             client_secret_post, none"
        )
    );
    assert_eq!(server.registrations(), 0);
    let (status, confidential) = register(json!({
        "redirect_uris": [REDIRECT], "client_name": "e2e",
        "grant_types": ["authorization_code", "refresh_token"],
    }))
    .await;
    assert_eq!(status, 201);
    let client_id = confidential["client_id"].as_str().unwrap().to_owned();
    let secret = confidential["client_secret"].as_str().unwrap().to_owned();
    assert_eq!(
        confidential["token_endpoint_auth_method"],
        "client_secret_basic"
    );
    assert_eq!(confidential["redirect_uris"], json!([REDIRECT]));
    assert_eq!(
        confidential["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(confidential["client_name"], "e2e");
    let (status, public) = register(json!({
        "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
    }))
    .await;
    assert_eq!(status, 201);
    assert_eq!(public.get("client_secret"), None);
    assert_eq!(public["grant_types"], json!(["authorization_code"]));
    let public_id = public["client_id"].as_str().unwrap().to_owned();
    assert_eq!(server.registrations(), 2);

    // Authorization: no redirect for an unknown client or redirect URI; a redirect with
    // the error otherwise.
    let valid = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", REDIRECT),
        ("state", "s 1"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("resource", RESOURCE),
    ];
    let without = |name: &str| -> Vec<(&str, &str)> {
        valid.iter().filter(|(n, _)| *n != name).copied().collect()
    };
    let mut unknown = valid.to_vec();
    unknown[1].1 = "nobody";
    assert_eq!(authorize_with(&server, &unknown).await, (400, None));
    let mut elsewhere = valid.to_vec();
    elsewhere[2].1 = "http://127.0.0.1:9/other";
    assert_eq!(authorize_with(&server, &elsewhere).await, (400, None));
    let iss = percent_encode(&issuer);
    let refused = |description: &str| {
        let description = percent_encode(description);
        Some(format!(
            "{REDIRECT}?error=invalid_request&error_description={description}&state=s+1&iss={iss}"
        ))
    };
    for (missing, description) in [
        ("response_type", "response_type must be code"),
        ("code_challenge", "code_challenge is required (PKCE)"),
        (
            "code_challenge_method",
            "code_challenge_method must be S256",
        ),
        ("resource", "exactly one resource (RFC 8707) is required"),
    ] {
        assert_eq!(
            authorize_with(&server, &without(missing)).await,
            (302, refused(description)),
            "{missing}"
        );
    }
    let mut plain = valid.to_vec();
    plain[5].1 = "plain";
    assert_eq!(
        authorize_with(&server, &plain).await,
        (302, refused("code_challenge_method must be S256"))
    );
    let requests = server.authorization_requests();
    assert_eq!(requests.len(), 7);
    assert_eq!(
        requests[0],
        AuthorizationRequest {
            client_id: "nobody".into(),
            scope: None,
            resource: Some(RESOURCE.into()),
            redirect_uri: REDIRECT.into(),
            prompt: None,
        }
    );

    // The code exchange: the client authenticated as registered, the verifier, the
    // redirect URI and the resource of the request; the code good once.
    let token = || http().post(server.token_endpoint());
    let code = code_for(&server, &client_id, "notes:read notes:write").await;
    assert_eq!(
        server.authorization_requests()[7],
        AuthorizationRequest {
            client_id: client_id.clone(),
            scope: Some("notes:read notes:write".into()),
            resource: Some(RESOURCE.into()),
            redirect_uri: REDIRECT.into(),
            prompt: None,
        }
    );
    let mut posted = exchange(&code, VERIFIER, RESOURCE);
    posted.extend([
        ("client_id", client_id.as_str()),
        ("client_secret", &secret),
    ]);
    let unauthenticated = (
        401,
        error(
            "invalid_client",
            "the client did not authenticate as it registered (client_secret_basic)",
        ),
    );
    assert_eq!(answer(token().form(&posted)).await, unauthenticated);
    assert_eq!(
        answer(
            token()
                .basic_auth(&client_id, Some("wrong"))
                .form(&exchange(&code, VERIFIER, RESOURCE))
        )
        .await,
        unauthenticated
    );
    let basic =
        |form: Vec<(&str, &str)>| answer(token().basic_auth(&client_id, Some(&secret)).form(&form));
    let other_verifier = "A".repeat(43);
    assert_eq!(
        basic(exchange(&code, &other_verifier, RESOURCE)).await,
        (
            400,
            error(
                "invalid_grant",
                "the code_verifier does not match the code_challenge"
            )
        )
    );
    // The code was consumed by the failed attempt.
    let used = (
        400,
        error("invalid_grant", "the code is unknown or was already used"),
    );
    assert_eq!(basic(exchange(&code, VERIFIER, RESOURCE)).await, used);
    let code = code_for(&server, &client_id, "notes:read notes:write").await;
    assert_eq!(
        basic(exchange(&code, VERIFIER, "http://127.0.0.1:8/other")).await,
        (
            400,
            error(
                "invalid_target",
                "the resource is not the one of the authorization request"
            )
        )
    );
    let code = code_for(&server, &client_id, "notes:read notes:write").await;
    let (status, tokens) = basic(exchange(&code, VERIFIER, RESOURCE)).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 5);
    assert_eq!(tokens["scope"], "notes:read notes:write");
    assert_eq!(basic(exchange(&code, VERIFIER, RESOURCE)).await, used);
    let claims = |access_token: &Value| {
        let key = server.shared.keys.lock().unwrap().rsa.decoding.clone();
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&[RESOURCE]);
        validation.set_issuer(&[&issuer]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(
            access_token.as_str().unwrap(),
            &key,
            &validation,
        )
        .unwrap();
        let claims = data.claims;
        (
            claims["sub"].clone(),
            claims["client_id"].clone(),
            claims["scope"].clone(),
            claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
        )
    };
    assert_eq!(
        claims(&tokens["access_token"]),
        (
            json!("user-1"),
            json!(client_id),
            json!("notes:read notes:write"),
            5
        )
    );

    // Refresh: rotation, the resource checked, a narrower scope allowed, a wider refused.
    let first = tokens["refresh_token"].as_str().unwrap().to_owned();
    let refresh = |refresh_token: &str, extra: &[(&'static str, &'static str)]| {
        let mut form = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
        ];
        form.extend_from_slice(extra);
        basic(form)
    };
    assert_eq!(
        refresh(&first, &[("resource", "http://127.0.0.1:8/other")]).await,
        (
            400,
            error(
                "invalid_target",
                "the resource is not the one of the authorization"
            )
        )
    );
    assert_eq!(
        refresh(&first, &[("scope", "notes:admin")]).await,
        (
            400,
            error(
                "invalid_scope",
                "the scope exceeds the one of the authorization"
            )
        )
    );
    let (status, second) =
        refresh(&first, &[("resource", RESOURCE), ("scope", "notes:read")]).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!(second["scope"], "notes:read");
    assert_eq!(claims(&second["access_token"]).2, json!("notes:read"));
    let second = second["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    let stale = (
        400,
        error(
            "invalid_grant",
            "the refresh token is unknown, already used or revoked",
        ),
    );
    assert_eq!(refresh(&first, &[]).await, stale);
    // The next refresh (without scope) gets the authorization's whole scope again.
    let (status, third) = refresh(&second, &[]).await;
    assert_eq!(
        (status, third["scope"].clone()),
        (200, json!("notes:read notes:write"))
    );
    let third = third["refresh_token"].as_str().unwrap().to_owned();
    server.revoke_refresh_tokens();
    assert_eq!(refresh(&third, &[]).await, stale);

    // A public client: its id in the form, no secret.
    let code = code_for(&server, &public_id, "notes:read").await;
    let mut form = exchange(&code, VERIFIER, RESOURCE);
    form.push(("client_id", &public_id));
    let (status, tokens) = answer(token().form(&form)).await;
    assert_eq!(status, 200, "{tokens}");
    assert_eq!(claims(&tokens["access_token"]).1, json!(public_id));

    assert_eq!(server.token_requests("authorization_code"), 8);
    assert_eq!(server.token_requests("refresh_token"), 6);
    assert_eq!(server.token_requests("client_credentials"), 0);
    assert_eq!(server.authorization_requests().len(), 11);
    assert_eq!(server.registrations(), 2);
}

#[tokio::test]
async fn without_registration_clients_are_registered_by_an_administrator() {
    let server = AuthorizationServer::start_with(
        Options::default()
            .code_flow()
            .without_registration()
            .token_endpoint_auth_methods(["client_secret_post"]),
    )
    .await;
    let metadata = metadata(&server).await;
    assert_registers_nobody(&server, &metadata).await;
    assert_eq!(
        metadata["token_endpoint_auth_methods_supported"],
        json!(["client_secret_post"])
    );
    assert_eq!(server.registrations(), 0);

    // A client registered by hand, authenticating with client_secret_post; the prompt of the
    // authorization request is recorded.
    let (client_id, secret) = server.register_client(REDIRECT, "client_secret_post");
    let mut consenting = valid_request(&client_id, "notes:read offline_access");
    consenting.push(("prompt", "consent"));
    assert_eq!(authorize_with(&server, &consenting).await.0, 302);
    assert_eq!(
        server.authorization_requests(),
        [AuthorizationRequest {
            client_id: client_id.clone(),
            scope: Some("notes:read offline_access".into()),
            resource: Some(RESOURCE.into()),
            redirect_uri: REDIRECT.into(),
            prompt: Some("consent".into()),
        }]
    );
    let code = code_for(&server, &client_id, "notes:read").await;
    let token = || http().post(server.token_endpoint());
    assert_eq!(
        answer(
            token()
                .basic_auth(&client_id, Some(&secret))
                .form(&exchange(&code, VERIFIER, RESOURCE))
        )
        .await,
        (
            401,
            error(
                "invalid_client",
                "the client did not authenticate as it registered (client_secret_post)",
            )
        )
    );
    let code = code_for(&server, &client_id, "notes:read").await;
    let mut form = exchange(&code, VERIFIER, RESOURCE);
    form.extend([
        ("client_id", client_id.as_str()),
        ("client_secret", &secret),
    ]);
    let (status, tokens) = answer(token().form(&form)).await;
    assert_eq!(
        (status, tokens["scope"].clone()),
        (200, json!("notes:read"))
    );
}
