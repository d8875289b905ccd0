// The browser test's two origins, both on 127.0.0.1:
//   host     http://127.0.0.1:$HOST_PORT/     dist/index.html + host.js, and /mcp reverse-proxied
//                                             (streaming) to $MCP_URL, so the page's MCP client is
//                                             same-origin whatever server is behind it (no CORS);
//   sandbox  http://127.0.0.1:$SANDBOX_PORT/  sandbox.html (the sandbox proxy) with the
//                                             Content-Security-Policy header built from ?csp=.
// Ports default to 0 (free ports). Once both listen it prints one line:
//   serve: host=http://127.0.0.1:H sandbox=http://127.0.0.1:S mcp=<MCP_URL>
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { buildCsp } from "./csp.mjs";

if (!process.env.MCP_URL) {
  console.error("serve.mjs: set MCP_URL (the MCP server's endpoint, e.g. http://127.0.0.1:PORT/mcp)");
  process.exit(2);
}
const MCP_URL = new URL(process.env.MCP_URL);
const DIST = path.join(import.meta.dirname, "dist");
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };
let sandboxOrigin = "";

function sendFile(res, name, headers = {}) {
  const file = path.join(DIST, path.basename(name));
  if (!TYPES[path.extname(file)] || !fs.existsSync(file)) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  let body = fs.readFileSync(file);
  if (file.endsWith(".html")) body = body.toString("utf8").replaceAll("__SANDBOX_ORIGIN__", sandboxOrigin);
  res.writeHead(200, { "content-type": TYPES[path.extname(file)], "cache-control": "no-store", ...headers });
  res.end(body);
}

function proxyMcp(req, res) {
  // Host and Origin go through as the browser sent them, as from a same-origin reverse proxy: the
  // server's DNS-rebinding check accepts an Origin that matches the Host (a loopback name).
  const headers = { ...req.headers };
  const up = http.request(MCP_URL, { method: req.method, headers }, (upRes) => {
    res.writeHead(upRes.statusCode ?? 502, upRes.headers);
    upRes.pipe(res); // SSE streams through unbuffered
  });
  up.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(`proxy: ${e.message}`);
  });
  res.on("close", () => up.destroy()); // the page dropped the stream
  // One line per request, for the test to check the era on the wire:
  //   serve: mcp POST server/discover version=2026-07-28 session=no
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    let methods = "";
    if (body.length) try {
      const msg = JSON.parse(body.toString("utf8"));
      methods = (Array.isArray(msg) ? msg : [msg]).map((m) => m?.method ?? (m && "id" in m ? "response" : "?")).join(",");
    } catch {}
    const version = req.headers["mcp-protocol-version"] ?? "-";
    const session = req.headers["mcp-session-id"] ? "yes" : "no";
    console.log(`serve: mcp ${req.method} ${methods || "-"} version=${version} session=${session}`);
    up.end(body);
  });
}

const host = http.createServer((req, res) => {
  const url = new URL(req.url, "http://host");
  if (url.pathname === "/mcp") return proxyMcp(req, res);
  if (url.pathname === "/" || url.pathname === "/index.html") return sendFile(res, "index.html");
  if (url.pathname === "/host.js") return sendFile(res, "host.js");
  if (url.pathname === "/favicon.ico") return res.writeHead(204).end();
  res.writeHead(404, { "content-type": "text/plain" }).end("not found");
});

const sandbox = http.createServer((req, res) => {
  const url = new URL(req.url, "http://sandbox");
  if (url.pathname === "/sandbox.html") {
    let declared;
    try {
      declared = JSON.parse(url.searchParams.get("csp") ?? "null");
    } catch {
      declared = null; // unreadable: the restrictive default
    }
    const csp = buildCsp(declared);
    console.log(`serve: sandbox CSP: ${csp}`);
    return sendFile(res, "sandbox.html", { "content-security-policy": csp });
  }
  if (url.pathname === "/sandbox.js") return sendFile(res, "sandbox.js");
  res.writeHead(404, { "content-type": "text/plain" }).end("not found");
});

const listen = (server, port) =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server.address().port));
  });
const hostPort = await listen(host, Number(process.env.HOST_PORT ?? 0));
const sandboxPort = await listen(sandbox, Number(process.env.SANDBOX_PORT ?? 0));
sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
console.log(`serve: host=http://127.0.0.1:${hostPort} sandbox=${sandboxOrigin} mcp=${MCP_URL.href}`);

for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
