// The notes board: an MCP App view (ext-apps `App`) that renders the notes of the notes example's
// `show_board` tool, adds notes through the host with `add_note`, and refreshes with the app-only
// `board_notes` tool. Everything is inline in the built page: it runs under the host's default CSP.
import { App, applyDocumentTheme, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";

interface Note {
  id: number;
  title: string;
  body: string;
  tags: string[];
}
interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const textOf = (r: ToolResult) =>
  (r.content ?? []).filter((c) => c.type === "text" && typeof c.text === "string").map((c) => c.text).join("\n");

let tag: string | null = null;

function showError(message: string) {
  $("error").textContent = message;
}

function render(result: ToolResult) {
  const sc = result.structuredContent as { notes?: Note[]; tag?: string | null } | undefined;
  const list = $("notes");
  if (!sc || !Array.isArray(sc.notes)) {
    list.replaceChildren();
    $("count").textContent = "0 notes";
    $("fallback").textContent = textOf(result);
    return;
  }
  tag = typeof sc.tag === "string" ? sc.tag : null;
  $("fallback").textContent = "";
  list.replaceChildren(
    ...sc.notes.map((note) => {
      const card = document.createElement("article");
      card.className = "note";
      card.dataset.id = String(note.id);
      const h3 = document.createElement("h3");
      h3.textContent = note.title;
      const p = document.createElement("p");
      p.textContent = note.body;
      const tags = document.createElement("ul");
      tags.className = "tags";
      for (const t of note.tags ?? []) {
        const li = document.createElement("li");
        li.className = "tag";
        li.textContent = t;
        tags.append(li);
      }
      card.append(h3, p, tags);
      return card;
    }),
  );
  const n = sc.notes.length;
  $("count").textContent = `${n} ${n === 1 ? "note" : "notes"}`;
}

function applyContext(ctx: Partial<McpUiHostContext> | undefined) {
  if (ctx?.theme) {
    applyDocumentTheme(ctx.theme);
    $("theme").textContent = ctx.theme;
  }
}

const app = new App({ name: "notes-board", version: "0.1.0" }, {}, { autoResize: true });

// Handlers go before connect(): tool input and result are sent once, right after the handshake.
app.addEventListener("toolinput", (params) => {
  $("tool-input").textContent = JSON.stringify(params.arguments ?? {});
});
app.addEventListener("toolresult", (result) => {
  if (result.isError) showError(textOf(result) || "the tool failed");
  render(result);
});
app.addEventListener("toolcancelled", (params) => showError(`cancelled${params.reason ? `: ${params.reason}` : ""}`));
app.addEventListener("hostcontextchanged", (ctx) => applyContext(ctx));
app.onteardown = async () => ({});

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = (await app.callServerTool({ name, arguments: args })) as ToolResult;
  if (result.isError) throw new Error(textOf(result) || `${name} failed`);
  return result;
}

$("new-note").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const title = $<HTMLInputElement>("new-title").value.trim();
  const body = $<HTMLTextAreaElement>("new-body").value;
  const button = $<HTMLButtonElement>("add");
  showError("");
  if (!title) {
    showError("a note needs a title");
    return;
  }
  button.disabled = true;
  try {
    const added = await call("add_note", { title, body, tags: [] });
    const id = (added.structuredContent as { id?: number } | undefined)?.id;
    $("last-action").textContent = `added #${id}`;
    $<HTMLInputElement>("new-title").value = "";
    $<HTMLTextAreaElement>("new-body").value = "";
    render(await call("board_notes", tag === null ? {} : { tag }));
  } catch (e) {
    showError(e instanceof Error ? e.message : String(e));
  } finally {
    button.disabled = false;
  }
});

try {
  await app.connect();
  $("status").textContent = `connected to ${app.getHostVersion()?.name ?? "unknown host"}`;
  applyContext(app.getHostContext());
} catch (e) {
  $("status").textContent = "not connected";
  showError(e instanceof Error ? e.message : String(e));
}
