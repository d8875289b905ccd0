// The Content-Security-Policy a web host puts on the sandbox proxy's document (the View's inner
// iframe inherits it), from the UI resource's declared `_meta.ui.csp` (SEP-1865, "UI Resource
// Format" and "Sandbox proxy"): the restrictive default, declared origins appended, nested frames
// and base URIs only as declared, plugins never. Used by serve.mjs to send it and by test.mjs to
// check it.

// An entry that could break out of its directive (`;`, a newline), smuggle a keyword (a quote) or
// add a second source (a space or a comma) is dropped.
const origins = (list) =>
  (Array.isArray(list) ? list : []).filter((d) => typeof d === "string" && d !== "" && !/[;\r\n'", ]/.test(d));

export function buildCsp(csp) {
  const c = csp && typeof csp === "object" ? csp : {};
  const resource = origins(c.resourceDomains);
  const connect = origins(c.connectDomains);
  const frame = origins(c.frameDomains);
  const base = origins(c.baseUriDomains);
  const with_ = (head, extra) => [head, ...extra].join(" ");
  return [
    "default-src 'none'",
    with_("script-src 'self' 'unsafe-inline'", resource),
    with_("style-src 'self' 'unsafe-inline'", resource),
    with_("img-src 'self' data:", resource),
    with_("font-src 'self' data:", resource),
    with_("media-src 'self' data:", resource),
    connect.length ? with_("connect-src", connect) : "connect-src 'none'",
    frame.length ? with_("frame-src", frame) : "frame-src 'none'",
    "object-src 'none'",
    base.length ? with_("base-uri", base) : "base-uri 'self'",
  ].join("; ");
}
