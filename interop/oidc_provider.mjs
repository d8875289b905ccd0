// A real authorization server that no one here wrote: panva's oidc-provider (a certified OpenID
// Provider and OAuth 2.0 authorization server), on a free loopback port, with keys generated at
// start. tests/tests/all/auth_oidc_provider.rs points notes-server at it and judges its tokens.
//
// Usage: node interop/oidc_provider.mjs
//
// It prints one JSON line, {"issuer": ...}, then answers commands read from stdin, one JSON line
// per command, and exits when stdin closes:
//   forge <resource>  tokens of every kind a resource server must refuse (and one it must
//                     accept), signed with the provider's own key where a signature is needed:
//                     {"good", "expired", "not_yet_valid", "wrong_issuer", "wrong_audience",
//                      "alg_none", "hs256_public_key", "bad_signature", "unknown_kid"}
//   rotate            the provider signs with a new key from now on (an ES256 key whose kid is
//                     the one "unknown_kid" names) and publishes only that one: {"rotated": kid}
//
// The clients, all authenticating with client_secret_basic:
//   agent / agent-secret          client_credentials; JWT access tokens (RFC 9068) for the
//                                 resource it names (RFC 8707)
//   opaque-agent / opaque-secret  client_credentials; opaque access tokens
//   notes-server / notes-secret   no grant: the resource server, introspecting (RFC 7662)
// Access tokens carry the scopes asked for, of notes:read and notes:write.
//
// Clients may also register themselves (RFC 7591, open registration) for the authorization code
// flow: their JWT access tokens live 10 s, and the provider issues refresh tokens as OpenID
// Connect says (offline_access asked for with prompt=consent, the refresh_token grant
// registered). Its sign-in pages are a user who approves at once: the provider's interactions
// (/interaction/<uid>, which a browser reaches with the provider's cookies) sign in USER and
// grant every scope the request asks for.

import http from 'node:http';
import readline from 'node:readline';
import * as jose from 'jose';
import Provider from 'oidc-provider';

const SCOPES = 'notes:read notes:write';
const USER = 'user-1';
// The clients configured here, which use the client credentials grant.
const CONFIGURED = new Set(['agent', 'opaque-agent', 'notes-server']);

// stdout carries the answers only: the provider's notices go to stderr with its warnings.
console.info = console.warn;
const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** A signing key pair; `jwk` is the private JWK the provider signs with. */
async function signingKey(alg, kid) {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicJwk: await jose.exportJWK(publicKey), jwk };
}

function provider(issuer, key) {
  const client = (id, secret, grants) => ({
    client_id: id,
    client_secret: secret,
    grant_types: grants,
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: key.alg,
  });
  return new Provider(issuer, {
    clients: [
      client('agent', 'agent-secret', ['client_credentials']),
      client('opaque-agent', 'opaque-secret', ['client_credentials']),
      client('notes-server', 'notes-secret', []),
    ],
    jwks: { keys: [key.jwk] },
    scopes: ['openid', 'offline_access', ...SCOPES.split(' ')],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      // Only the resource server introspects; a client revokes its own tokens.
      introspection: {
        enabled: true,
        allowedPolicy: (_ctx, client) => client.clientId === 'notes-server',
      },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => client.clientId === token.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: SCOPES,
          audience: resource,
          accessTokenTTL: CONFIGURED.has(client.clientId) ? 600 : 10,
          accessTokenFormat: client.clientId === 'opaque-agent' ? 'opaque' : 'jwt',
          jwt: { sign: { alg: key.alg } },
        }),
      },
    },
  });
}

/**
 * The sign-in page of an interaction, approved at once: USER signs in, then consents to every
 * scope asked for (those the provider kept: it drops offline_access without prompt=consent).
 */
async function approve(provider, req, res) {
  const { prompt, params, session, grantId } = await provider.interactionDetails(req, res);
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: USER } });
    return;
  }
  const grant = grantId
    ? await provider.Grant.find(grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } });
}

let current;
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/interaction/')) {
    approve(current, req, res).catch((error) => {
      res.statusCode = 400;
      res.end(`the interaction failed: ${error.message}\n`);
    });
    return;
  }
  current.callback()(req, res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
const first = await signingKey('RS256', 'first');
const next = await signingKey('ES256', 'next');
current = provider(issuer, first);
answer({ issuer });

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function forge(resource) {
  const now = Math.floor(Date.now() / 1000);
  const claims = (changes) => ({
    iss: issuer,
    aud: resource,
    sub: 'forged',
    client_id: 'agent',
    scope: SCOPES,
    iat: now,
    exp: now + 600,
    jti: crypto.randomUUID(),
    ...changes,
  });
  const sign = (key, payload, header = {}) =>
    new jose.SignJWT(payload)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
      .sign(key.privateKey);
  const good = await sign(first, claims({}));
  const [head, , signature] = good.split('.');
  return {
    good,
    expired: await sign(first, claims({ iat: now - 7200, exp: now - 3600 })),
    not_yet_valid: await sign(first, claims({ nbf: now + 3600 })),
    wrong_issuer: await sign(first, claims({ iss: 'https://issuer.invalid' })),
    wrong_audience: await sign(first, claims({ aud: 'https://other.invalid/mcp' })),
    alg_none: `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims({}))}.`,
    // HS256 keyed with the provider's public key: the algorithm-confusion attack.
    hs256_public_key: await new jose.SignJWT(claims({}))
      .setProtectedHeader({ alg: 'HS256', kid: first.kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode(JSON.stringify(first.publicJwk))),
    // The payload of another token under the good one's signature.
    bad_signature: `${head}.${b64(claims({ sub: 'mallory' }))}.${signature}`,
    unknown_kid: await sign(next, claims({})),
  };
}

const commands = readline.createInterface({ input: process.stdin });
commands.on('line', async (line) => {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === 'forge') {
    answer(await forge(argument));
  } else if (command === 'rotate') {
    current = provider(issuer, next);
    answer({ rotated: next.kid });
  } else {
    answer({ error: `unknown command ${line}` });
  }
});
commands.on('close', () => process.exit(0));
