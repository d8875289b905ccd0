// Bundles the test host (host/host.ts: AppBridge + the v2 MCP client) and the sandbox proxy
// (host/sandbox.ts) with esbuild into dist/, next to their pages.
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";

const here = import.meta.dirname;
const out = path.join(here, "dist");
const t0 = performance.now();
fs.rmSync(out, { recursive: true, force: true });
await esbuild.build({
  entryPoints: { host: path.join(here, "host/host.ts"), sandbox: path.join(here, "host/sandbox.ts") },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  outdir: out,
  logLevel: "warning",
});
for (const f of ["index.html", "sandbox.html"]) fs.copyFileSync(path.join(here, "host", f), path.join(out, f));
console.error(`build: dist/ in ${(performance.now() - t0).toFixed(0)} ms: ` +
  fs.readdirSync(out).sort().map((f) => `${f} ${fs.statSync(path.join(out, f)).size}`).join(", "));
