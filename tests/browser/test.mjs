// The MCP Apps browser test: our server's notes board, rendered by a web host in headless
// Chromium, at one protocol revision.
//
//   MCP_URL=http://127.0.0.1:PORT/mcp ERA=2025-11-25 node tests/browser/test.mjs
//
// MCP_URL   (required) the endpoint of a fresh `notes-server --board --http 127.0.0.1:0` (the board
//           starts with notes #1 and #2, and the test adds #3)
// ERA       2025-11-25 (default: initialize, a session) or 2026-07-28 (server/discover, stateless)
// OUT_DIR   where the screenshot and the page's console go (default: tests/browser/out)
// CHROMIUM  the browser (default: /usr/bin/chromium; scripts/install-browser.sh installs it)
// DIRECT    1: the host page reaches MCP_URL itself, cross-origin, as web hosts do (the server
//           must allow the host's origin, http://127.0.0.1:$HOST_PORT, and answer its CORS
//           preflight); otherwise through serve.mjs's same-origin proxy, which also shows the
//           requests on the wire
// HOST_PORT the host origin's port (default: a free one)
// APP       board (default: notes-server --board, through show_board) or counter (the crate of
//           `mcp new --template app`, through show_counter)
//
// It starts serve.mjs (the host and sandbox origins, on free ports), reads the board's UI resource
// itself with the v2 client to know its declared CSP, then drives the host page (dist/, from
// build.mjs) and the View inside its two iframes, and checks exact values. It prints an `ok` line
// per check and exits 1 at the first failure, within 60 s in all.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { isDeepStrictEqual } from "node:util";
import { chromium } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { buildCsp } from "./csp.mjs";

const here = import.meta.dirname;
const T0 = performance.now();
const elapsed = () => `${((performance.now() - T0) / 1000).toFixed(2)}s`;
const ERAS = ["2025-11-25", "2026-07-28"];
const ERA = process.env.ERA || "2025-11-25";
const MCP_URL = process.env.MCP_URL;
const OUT_DIR = path.resolve(process.env.OUT_DIR || path.join(here, "out"));
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const DIRECT = process.env.DIRECT === "1";
const APP = process.env.APP || "board";
// Per app: the model's tool that shows the page, and the tool only the page calls.
const APPS = {
  board: { tool: "show_board", appOnly: "board_notes" },
  counter: { tool: "show_counter", appOnly: "increment" },
};
const { tool: TOOL, appOnly: APP_ONLY } = APPS[APP] ?? {};
const HOST_NAME = "rust-sdk-test-host"; // HOST_INFO.name in host/host.ts
const SANDBOX_ATTR = "allow-scripts allow-same-origin allow-forms";
const UI_MIME = "text/html;profile=mcp-app";
const TOTAL_MS = 60_000;
const STEP_MS = 10_000;

const children = [];
let browser;
const logs = [];

function killChildren() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGTERM");
}
process.on("exit", killChildren);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(1));

class Failure extends Error {}
const fail = (msg) => {
  throw new Failure(msg);
};
const ok = (what, value) => console.log(`ok ${what} = ${JSON.stringify(value)}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `get` until it returns `want` (deep equality), for at most STEP_MS. */
async function expectValue(what, get, want, { timeout = STEP_MS } = {}) {
  const deadline = performance.now() + timeout;
  let got;
  for (let i = 0; i < 10_000; i++) {
    try {
      got = await get();
    } catch (e) {
      got = `<${e.message.split("\n")[0]}>`;
    }
    if (isDeepStrictEqual(got, want)) return ok(what, got);
    if (performance.now() > deadline) break;
    await sleep(50);
  }
  fail(`${what} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

function startServe() {
  const child = spawn(process.execPath, [path.join(here, "serve.mjs")], {
    env: { ...process.env, MCP_URL, HOST_PORT: process.env.HOST_PORT || "0", SANDBOX_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  child.stderr.on("data", (d) => process.stderr.write(`[serve] ${d}`));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      logs.push(`[serve] ${line}`);
      const m = /^serve: host=(\S+) sandbox=(\S+)/.exec(line);
      if (m) resolve({ host: m[1], sandbox: m[2] });
    });
    child.on("exit", (code) => reject(new Failure(`serve.mjs exited (${code}) before listening`)));
  });
}

/** What the server declares, read apart from the page: the board tool's UI resource and its _meta.ui. */
async function declaredUi() {
  const options = { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [UI_MIME] } } } };
  if (ERA === "2026-07-28") options.versionNegotiation = { mode: { pin: ERA } };
  else options.supportedProtocolVersions = [ERA];
  const client = new Client({ name: "rust-sdk-browser-test", version: "0.1.0" }, options);
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL));
  await client.connect(transport, { timeout: STEP_MS });
  try {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === TOOL);
    if (!tool) fail(`the server has no ${TOOL} tool (tools: ${tools.map((t) => t.name).join(",")})`);
    const uri = tool._meta?.ui?.resourceUri ?? tool._meta?.["ui/resourceUri"];
    if (typeof uri !== "string") fail(`${TOOL} has no _meta.ui.resourceUri: ${JSON.stringify(tool._meta)}`);
    const { contents } = await client.readResource({ uri });
    const item = contents.find((c) => c.uri === uri) ?? contents[0];
    let ui = item?._meta?.ui;
    if (!ui) {
      const { resources } = await client.listResources();
      ui = resources.find((r) => r.uri === uri)?._meta?.ui;
    }
    return { uri, ui: ui ?? {} };
  } finally {
    if (ERA !== "2026-07-28") await transport.terminateSession?.().catch(() => {});
    await client.close().catch(() => {});
  }
}

async function run() {
  if (!MCP_URL) fail("set MCP_URL to the endpoint of a fresh notes-server --board (e.g. http://127.0.0.1:PORT/mcp)");
  if (!ERAS.includes(ERA)) fail(`ERA=${ERA}: use one of ${ERAS.join(", ")}`);
  if (!TOOL) fail(`APP=${APP}: use one of ${Object.keys(APPS).join(", ")}`);
  if (!fs.existsSync(CHROMIUM)) fail(`no browser at ${CHROMIUM}: run scripts/install-browser.sh (or set CHROMIUM)`);
  if (!fs.existsSync(path.join(here, "dist", "host.js"))) fail("no tests/browser/dist/host.js: run scripts/install-browser.sh (or node tests/browser/build.mjs)");
  fs.mkdirSync(OUT_DIR, { recursive: true });
  console.log(`era ${ERA}, server ${MCP_URL}`);

  const origins = await startServe();
  console.log(`serve.mjs up (${elapsed()}): host ${origins.host}, sandbox ${origins.sandbox}`);
  const declared = await declaredUi();
  const wantCsp = buildCsp(declared.ui.csp);
  console.log(`declared (${elapsed()}): ${declared.uri} _meta.ui = ${JSON.stringify(declared.ui)}`);

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: STEP_MS,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  console.log(`chromium ${browser.version()} up (${elapsed()})`);
  const page = await browser.newPage({ viewport: { width: 960, height: 800 } });
  page.setDefaultTimeout(STEP_MS);
  page.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`[pageerror] ${e.message}`));
  const sandboxCsp = [];
  page.on("response", (r) => {
    if (new URL(r.url()).pathname === "/sandbox.html") sandboxCsp.push(r.headers()["content-security-policy"] ?? null);
  });

  const direct = DIRECT ? `&mcp=${encodeURIComponent(MCP_URL)}` : "";
  await page.goto(`${origins.host}/?era=${encodeURIComponent(ERA)}&tool=${TOOL}${direct}`);
  await page.waitForFunction(
    () => window.hostReady === true || document.getElementById("host-status")?.textContent?.startsWith("error"),
    null,
    { timeout: 20_000 },
  ).catch(() => {});
  const status = await page.textContent("#host-status");
  if (status !== "ready") fail(`host status: ${status}`);
  ok("host #host-status", status);

  // The host: protocol revision, the model's and the app's tools, the sandbox and its CSP.
  const text = (sel) => () => page.textContent(sel);
  await expectValue("host #protocol-version", text("#protocol-version"), ERA);
  const modelTools = (await page.textContent("#model-tools")).split(",");
  if (!modelTools.includes(TOOL)) fail(`#model-tools lacks ${TOOL}: ${modelTools}`);
  if (modelTools.includes(APP_ONLY)) fail(`#model-tools includes the app-only ${APP_ONLY}: ${modelTools}`);
  ok(`host #model-tools (has ${TOOL}, not ${APP_ONLY})`, modelTools.join(","));
  await expectValue("host #app-only-tools", text("#app-only-tools"), APP_ONLY);
  await expectValue("host #app-frame[sandbox]", () => page.getAttribute("#app-frame", "sandbox"), SANDBOX_ATTR);
  await expectValue("sandbox.html Content-Security-Policy", () => sandboxCsp.at(-1), wantCsp);

  // The era on the wire (serve.mjs logs each request the page's client sent through it).
  const wire = logs.filter((l) => l.startsWith("[serve] serve: mcp POST")).map((l) => l.slice("[serve] serve: mcp POST ".length));
  const first = wire[0]?.split(" ")[0];
  const sessions = new Set(wire.slice(1).map((l) => /session=(\w+)/.exec(l)?.[1]));
  const versions = new Set(wire.slice(1).map((l) => /version=(\S+)/.exec(l)?.[1]));
  if (DIRECT) {
    // Nothing went through the proxy: the page's client spoke to the server across origins.
    await expectValue("wire: requests through the proxy", async () => wire.length, 0, { timeout: 0 });
  } else {
    const wantWire = ERA === "2026-07-28"
      ? { first: "server/discover", sessions: ["no"], versions: [ERA] }
      : { first: "initialize", sessions: ["yes"], versions: [ERA] };
    await expectValue("wire: first request, session ids, protocol-version headers after it",
      async () => ({ first, sessions: [...sessions], versions: [...versions] }), wantWire, { timeout: 0 });
  }

  // The View, inside the sandbox proxy's inner iframe.
  const view = page.frameLocator("#app-frame").frameLocator("#inner");
  const viewText = (sel) => () => view.locator(sel).textContent({ timeout: 500 });
  if (APP === "board") await board(view, viewText);
  else await counter(view, viewText);

  // The page's CSP: a fetch from inside it to an origin the page did not declare is blocked.
  const inner = page.frames().find((f) => f.parentFrame()?.parentFrame() === page.mainFrame());
  if (!inner) fail("no View frame inside the sandbox proxy");
  await expectValue("app fetch to an undeclared origin", () => inner.evaluate(() => new Promise((resolve) => {
    let settled = false;
    const settle = (how) => { if (!settled) { settled = true; resolve(how); } };
    document.addEventListener("securitypolicyviolation", (e) => settle(`blocked ${e.effectiveDirective}`), { once: true });
    fetch("http://127.0.0.1:9/probe").then(() => settle("allowed"), () => setTimeout(() => settle("failed, no violation"), 500));
  })), "blocked connect-src", { timeout: 0 });

  // A host context change: the theme.
  const theme = () => view.locator("html").getAttribute("data-theme", { timeout: 500 });
  await page.evaluate(() => window.hostSetTheme("dark"));
  await expectValue("app <html data-theme>", theme, "dark");
  const shot = path.join(OUT_DIR, `${APP}-${ERA}${DIRECT ? "-direct" : ""}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  await page.evaluate(() => window.hostSetTheme("light"));
  await expectValue("app <html data-theme>", theme, "light");
  console.log(`screenshot ${shot}`);
}

/** The notes board: the notes, a note added through add_note and the app-only board_notes. */
async function board(view, viewText) {
  const titles = () => view.locator("article.note h3").allTextContents();
  await expectValue("app #status", viewText("#status"), `connected to ${HOST_NAME}`);
  await expectValue("app #tool-input", viewText("#tool-input"), "{}");
  await expectValue("app #count", viewText("#count"), "2 notes");
  await expectValue("app note titles", titles, ["Shopping", "Ideas"]);
  await expectValue("app note ids", () => view.locator("article.note").evaluateAll((els) => els.map((e) => e.dataset.id)), ["1", "2"]);
  await expectValue("app #theme", viewText("#theme"), "light");
  // Add a note from the View: add_note, then the app-only board_notes, both through the host.
  await view.locator("#new-title").fill("Groceries");
  await view.locator("#new-body").fill("Eggs");
  await view.locator("#add").click();
  await expectValue("app #last-action", viewText("#last-action"), "added #3");
  await expectValue("app #count", viewText("#count"), "3 notes");
  await expectValue("app last note title", async () => (await titles()).at(-1), "Groceries");
  await expectValue("app #error", viewText("#error"), "");
}

/** The counter of `mcp new --template app`: the count, and +1 through the app-only increment. */
async function counter(view, viewText) {
  await expectValue("app #count", viewText("#count"), "0");
  await view.locator("#increment").click();
  await expectValue("app #count", viewText("#count"), "1");
  await expectValue("app #error hidden", () => view.locator("#error").isHidden(), true);
}

const timer = setTimeout(() => {
  console.error(`FAIL (${ERA}): the test took longer than ${TOTAL_MS / 1000} s`);
  killChildren();
  Promise.race([browser?.close(), sleep(3000)]).finally(() => process.exit(1));
}, TOTAL_MS);

let failed = false;
try {
  await run();
} catch (e) {
  failed = true;
  console.error(`FAIL (${ERA}): ${e instanceof Failure ? e.message : e.stack}`);
} finally {
  const consoleLog = path.join(OUT_DIR, `${APP}-${ERA}${DIRECT ? "-direct" : ""}.console.log`);
  if (logs.length) {
    try {
      fs.mkdirSync(OUT_DIR, { recursive: true });
      fs.writeFileSync(consoleLog, logs.join("\n") + "\n");
      console.log(`console log ${consoleLog}`);
    } catch {}
  }
  if (failed) console.error(logs.slice(-40).join("\n"));
  await browser?.close().catch(() => {});
  killChildren();
  clearTimeout(timer);
  console.log(`${failed ? "FAILED" : "PASSED"} (${ERA}) in ${elapsed()}`);
  process.exit(failed ? 1 : 0);
}
