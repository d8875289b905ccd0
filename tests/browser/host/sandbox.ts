// The sandbox proxy (SEP-1865 "Sandbox proxy"): the host's outer iframe, on another origin, served
// with the Content-Security-Policy header built from the resource's declared CSP. It makes the inner
// iframe that holds the View (which inherits that CSP), loads the View's HTML into it when the host
// sends ui/notifications/sandbox-resource-ready, and relays every other message both ways.
const HOST_ORIGIN = document.referrer ? new URL(document.referrer).origin : "";
if (window.self === window.top || !HOST_ORIGIN) throw new Error("the sandbox proxy must be framed by its host");

const inner = document.createElement("iframe");
inner.id = "inner";
inner.style.cssText = "width:100%;height:100%;border:none;display:block";
inner.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
document.body.appendChild(inner);

const PREFIX = "ui/notifications/sandbox-";

window.addEventListener("message", (ev) => {
  if (ev.source === window.parent) {
    if (ev.origin !== HOST_ORIGIN) return;
    const msg = ev.data;
    if (msg?.method === `${PREFIX}resource-ready`) {
      const { html, sandbox, permissions } = msg.params ?? {};
      if (typeof sandbox === "string") inner.setAttribute("sandbox", sandbox);
      const allow = [
        permissions?.camera && "camera",
        permissions?.microphone && "microphone",
        permissions?.geolocation && "geolocation",
        permissions?.clipboardWrite && "clipboard-write",
      ].filter(Boolean).join("; ");
      if (allow) inner.setAttribute("allow", allow);
      // document.write keeps the sandbox's origin and its CSP for the View.
      const doc = inner.contentDocument;
      if (doc) {
        doc.open();
        doc.write(String(html ?? ""));
        doc.close();
      } else {
        inner.srcdoc = String(html ?? "");
      }
      return;
    }
    if (typeof msg?.method === "string" && msg.method.startsWith(PREFIX)) return;
    inner.contentWindow?.postMessage(msg, "*");
  } else if (ev.source === inner.contentWindow) {
    window.parent.postMessage(ev.data, HOST_ORIGIN);
  }
});

window.parent.postMessage({ jsonrpc: "2.0", method: `${PREFIX}proxy-ready`, params: {} }, HOST_ORIGIN);
