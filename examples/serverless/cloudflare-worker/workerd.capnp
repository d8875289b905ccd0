# Runs the built worker (build/, which worker-build writes) in workerd, Cloudflare's runtime,
# without wrangler: `workerd serve workerd.capnp [--socket-addr http=127.0.0.1:PORT]` serves
# http://127.0.0.1:8787/mcp (or PORT). The worker's variables come from workerd's environment
# (JWT_ISSUER, MCP_RESOURCE, JWKS; see wrangler.toml), and its fetches reach local addresses only
# (add "public" to `allow` for an issuer on the internet). The tests and the cold-start benchmark
# run it this way; the compatibility date is wrangler.toml's.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "index.js", esModule = embed "build/index.js"),
    (name = "index_bg.wasm", wasm = embed "build/index_bg.wasm"),
  ],
  bindings = [
    (name = "JWT_ISSUER", fromEnvironment = "JWT_ISSUER"),
    (name = "MCP_RESOURCE", fromEnvironment = "MCP_RESOURCE"),
    (name = "JWKS", fromEnvironment = "JWKS"),
  ],
  compatibilityDate = "2026-11-01",
);
