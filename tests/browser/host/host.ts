// The test host: a web page that renders an MCP App the way SEP-1865 asks of web hosts, against
// any MCP server reachable at /mcp (serve.mjs proxies it to the server under test).
// - the v2 TypeScript client (@modelcontextprotocol/client) at the protocol revision in ?era=:
//   2025-11-25 (initialize, session) or 2026-07-28 (server/discover, stateless);
// - it declares MCP Apps support (capabilities.extensions["io.modelcontextprotocol/ui"]);
// - it enforces tool visibility (AppBridge does not): the model's list leaves out tools whose
//   _meta.ui.visibility lacks "model", and the app may call only tools whose visibility has "app";
// - the View runs in a double iframe: #app-frame is the sandbox proxy on another origin, whose
//   Content-Security-Policy header serve.mjs builds from the resource's declared _meta.ui.csp.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  SANDBOX_PROXY_READY_METHOD,
  buildAllowAttribute,
  getToolUiResourceUri,
  type McpUiHostContext,
  type McpUiResourceCsp,
  type McpUiResourcePermissions,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const UI_EXTENSION = "io.modelcontextprotocol/ui";
export const HOST_INFO = { name: "rust-sdk-test-host", version: "0.1.0" };
// The model's tool whose result the host renders: ?tool=NAME (show_board by default).
const TOOL = new URLSearchParams(location.search).get("tool") ?? "show_board";
const TOOL_ARGS: Record<string, unknown> = {};
const SANDBOX_ATTR = "allow-scripts allow-same-origin allow-forms";
const MAX_PAGES = 50;
const INIT_TIMEOUT_MS = 10_000;

type Tool = { name: string; _meta?: Record<string, unknown> } & Record<string, unknown>;
type UiMeta = { csp?: McpUiResourceCsp; permissions?: McpUiResourcePermissions; prefersBorder?: boolean };

const $ = (id: string) => document.getElementById(id)!;
function log(...parts: unknown[]) {
  const line = parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" ");
  console.log(`[host] ${line}`);
  $("host-log").textContent += line + "\n";
}

/** SEP-1865: visibility defaults to ["model", "app"]. */
function visibility(tool: Tool): string[] {
  const v = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : ["model", "app"];
}

/** Client options that make the v2 client speak exactly the given protocol revision. */
function clientOptions(era: string) {
  const capabilities = { extensions: { [UI_EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
  if (era === "2026-07-28") {
    // Modern era: connect() sends server/discover and must get exactly this revision (no fallback
    // to initialize); no session; every request carries the per-request _meta envelope.
    return { capabilities, versionNegotiation: { mode: { pin: era } } };
  }
  if (era === "2025-11-25") {
    // Legacy era (the default mode): initialize offering only this revision, and refusing any other.
    return { capabilities, supportedProtocolVersions: [era] };
  }
  throw new Error(`unknown era ${era}`);
}

async function listAll<T>(page: (cursor?: string) => Promise<{ nextCursor?: string } & T>, pick: (p: T) => unknown[]) {
  const all: unknown[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const p = await page(cursor);
    all.push(...pick(p));
    cursor = p.nextCursor;
    if (!cursor) return all;
  }
  throw new Error(`more than ${MAX_PAGES} pages`);
}

function decodeBase64(b64: string): string {
  const bin = atob(b64);
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

async function main() {
  const query = new URLSearchParams(location.search);
  const era = query.get("era") ?? "2025-11-25";
  // ?mcp=URL reaches the server directly, from this page's origin (CORS), as web hosts do;
  // without it, through serve.mjs's same-origin proxy.
  const endpoint = new URL(query.get("mcp") ?? "/mcp", location.href);
  const client = new Client(HOST_INFO, clientOptions(era));
  await client.connect(new StreamableHTTPClientTransport(endpoint));
  $("protocol-version").textContent = client.getNegotiatedProtocolVersion() ?? "?";
  $("protocol-era").textContent = client.getProtocolEra() ?? "?";
  $("server-name").textContent = client.getServerVersion()?.name ?? "(anonymous)";
  log("connected:", client.getNegotiatedProtocolVersion(), client.getProtocolEra(), client.getServerVersion());

  // Tools, and what the model would see.
  let tools = (await listAll((cursor) => client.listTools({ cursor }), (p) => p.tools)) as Tool[];
  const names = (pred: (t: Tool) => boolean) => tools.filter(pred).map((t) => t.name).sort().join(",");
  $("model-tools").textContent = names((t) => visibility(t).includes("model"));
  $("app-only-tools").textContent = names((t) => !visibility(t).includes("model"));

  const tool = tools.find((t) => t.name === TOOL && visibility(t).includes("model"));
  if (!tool) throw new Error(`the model has no tool ${TOOL}`);
  const uri = getToolUiResourceUri(tool as never); // _meta.ui.resourceUri, or the legacy _meta["ui/resourceUri"]
  if (!uri) throw new Error(`${TOOL} declares no UI resource`);
  $("resource-uri").textContent = uri;

  // The tool call (the model's), and the UI resource in parallel.
  const resultPromise = client.callTool({ name: TOOL, arguments: TOOL_ARGS });
  resultPromise.catch(() => {}); // handled below
  const read = await client.readResource({ uri });
  const item = (read.contents.find((c) => c.uri === uri) ?? read.contents[0]) as Record<string, unknown> | undefined;
  if (!item) throw new Error(`resources/read ${uri}: no contents`);
  if (item.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`resources/read ${uri}: mimeType ${JSON.stringify(item.mimeType)}, not ${RESOURCE_MIME_TYPE}`);
  const html = typeof item.text === "string" ? item.text : typeof item.blob === "string" ? decodeBase64(item.blob) : null;
  if (html === null) throw new Error(`resources/read ${uri}: neither text nor blob`);
  let ui = (item._meta as { ui?: UiMeta } | undefined)?.ui;
  if (!ui) {
    const resources = (await listAll((cursor) => client.listResources({ cursor }), (p) => p.resources)) as Array<Record<string, unknown>>;
    ui = (resources.find((r) => r.uri === uri)?._meta as { ui?: UiMeta } | undefined)?.ui;
    log("resource: no _meta.ui on the read contents; the listing's:", ui ?? null);
  }
  ui ??= {};
  $("resource-ui").textContent = JSON.stringify(ui);
  log("resource", uri, `${html.length} chars`, "_meta.ui", ui);

  // The sandbox proxy, on the other origin, with the declared CSP.
  const frame = document.createElement("iframe");
  frame.id = "app-frame";
  frame.setAttribute("sandbox", SANDBOX_ATTR);
  const allow = buildAllowAttribute(ui.permissions);
  if (allow) frame.setAttribute("allow", allow);
  if (ui.prefersBorder) frame.classList.add("bordered");
  const src = new URL("/sandbox.html", (window as unknown as { SANDBOX_ORIGIN: string }).SANDBOX_ORIGIN);
  if (ui.csp) src.searchParams.set("csp", JSON.stringify(ui.csp));
  const proxyReady = new Promise<void>((resolve) => {
    const onMessage = (ev: MessageEvent) => {
      if (ev.source === frame.contentWindow && ev.data?.method === SANDBOX_PROXY_READY_METHOD) {
        window.removeEventListener("message", onMessage);
        resolve();
      }
    };
    window.addEventListener("message", onMessage);
  });
  frame.src = src.href;
  $("app-container").appendChild(frame);
  await proxyReady;
  log("sandbox proxy ready");

  let context: McpUiHostContext = {
    theme: "light",
    locale: "en-US",
    platform: "web",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxHeight: 900 },
    toolInfo: { tool: tool as never },
  };
  const bridge = new AppBridge(
    client as never,
    HOST_INFO,
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: context },
  );
  bridge.addEventListener("sizechange", ({ height }) => {
    if (height !== undefined) frame.style.height = `${height}px`;
  });
  bridge.addEventListener("loggingmessage", (p) => log("app log:", p));
  const initialized = new Promise<void>((resolve) => bridge.addEventListener("initialized", () => resolve()));

  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  // AppBridge forwards the View's tools/call to the server as is; SEP-1865 makes the host refuse
  // tools whose visibility lacks "app", so replace its forwarder with one that checks.
  bridge.oncalltool = async (params, extra) => {
    let t = tools.find((x) => x.name === params.name);
    if (!t) {
      tools = (await listAll((cursor) => client.listTools({ cursor }), (p) => p.tools)) as Tool[];
      t = tools.find((x) => x.name === params.name);
    }
    if (!t || !visibility(t).includes("app")) {
      log("app → tools/call", params.name, "refused: not visible to apps");
      return { content: [{ type: "text", text: `tool ${params.name} is not available to apps` }], isError: true };
    }
    log("app → tools/call", params.name, params.arguments ?? {});
    return client.callTool({ name: params.name, arguments: params.arguments ?? {} }, { signal: extra.mcpReq.signal });
  };

  await bridge.sendSandboxResourceReady({ html, csp: ui.csp, permissions: ui.permissions });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    initialized,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the View did not initialize within ${INIT_TIMEOUT_MS} ms`)), INIT_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  log("view initialized:", bridge.getAppVersion());

  await bridge.sendToolInput({ arguments: TOOL_ARGS });
  try {
    const result = await resultPromise;
    log("tool result:", result.structuredContent ?? result.content);
    await bridge.sendToolResult(result as never);
  } catch (e) {
    log("tool call failed:", String(e));
    await bridge.sendToolCancelled({ reason: String(e) });
  }

  const setTheme = (theme: "light" | "dark") => {
    context = { ...context, theme };
    bridge.setHostContext(context); // sends ui/notifications/host-context-changed {theme}
    document.documentElement.dataset.theme = theme;
    log("host context: theme", theme);
  };
  (window as unknown as { hostSetTheme: typeof setTheme }).hostSetTheme = setTheme;
  $("theme-btn").addEventListener("click", () => setTheme(context.theme === "dark" ? "light" : "dark"));
  document.documentElement.dataset.theme = "light";

  $("host-status").textContent = "ready";
  (window as unknown as { hostReady: boolean }).hostReady = true;
}

main().catch((e) => {
  console.error("[host]", e);
  $("host-status").textContent = `error: ${e instanceof Error ? e.message : String(e)}`;
});
