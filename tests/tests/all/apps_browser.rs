//! The notes board (MCP Apps) rendered in a real browser: headless Chromium (Debian's package,
//! driven by playwright-core) loads a web host built on the official `ext-apps` `AppBridge` and
//! the official TypeScript client (`tests/browser`), which connects to `notes-server --board`,
//! puts the board's page in a sandboxed iframe on an origin of its own with the content security
//! policy the page declares, and checks from the page's DOM that the page gets the tool's input
//! and result, calls the server's tools back through the host, and follows the host's theme. On
//! both eras, each against a fresh server (the test adds note #3); and once more per era with
//! the page reaching the server from its own origin, as web hosts do (`--allow-origin`, CORS).
//!
//! `scripts/install-browser.sh` (run by `scripts/test.sh`) installs Chromium, Node and the
//! host's packages. The screenshots land in `target/apps-browser/board-<ERA>.png`, with the
//! page's console beside them.

use std::process::Command;

use tests::interop::{HttpExample, node, repo_root};

/// How the host page reaches the server.
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    /// Through the test's same-origin proxy, which also shows the requests on the wire.
    Proxied,
    /// From the page's own origin, as web hosts do: the server allows that origin
    /// (`--allow-origin`) and answers its CORS preflight.
    Direct,
}

/// A free port on loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Runs `tests/browser/test.mjs` for `app` (`board` or `counter`) at `era` against the server
/// at `url`, with the host page on `host_port`; returns what it printed, and panics with it when
/// a check fails.
fn browser_test(app: &str, era: &str, url: &str, host_port: u16, reach: Reach) -> String {
    let root = repo_root();
    let host = root.join("tests/browser");
    assert!(
        host.join("dist/.stamp").exists() && host.join("node_modules/playwright-core").exists(),
        "the browser test is not installed: run scripts/install-browser.sh (scripts/test.sh does)"
    );
    let output = Command::new(node())
        .arg(host.join("test.mjs"))
        .env("APP", app)
        .env("MCP_URL", url)
        .env("ERA", era)
        .env("OUT_DIR", root.join("target/apps-browser"))
        .env("HOST_PORT", host_port.to_string())
        .env("DIRECT", if reach == Reach::Direct { "1" } else { "0" })
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{app} failed in the browser at {era}:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let suffix = if reach == Reach::Direct {
        "-direct"
    } else {
        ""
    };
    let shot = root.join(format!("target/apps-browser/{app}-{era}{suffix}.png"));
    assert!(shot.exists(), "no screenshot {}", shot.display());
    stdout
}

/// Asserts that `stdout` has each of `lines`, exactly.
fn has_lines(stdout: &str, lines: &[String]) {
    for line in lines {
        assert!(
            stdout.lines().any(|l| l == line),
            "no `{line}` in:\n{stdout}"
        );
    }
}

/// Runs the browser test at `era` against a fresh board server; panics with its output when a
/// check fails.
fn board_renders(era: &str, reach: Reach) {
    // The host page's origin is known before the server starts, which must allow it.
    let host_port = free_port();
    let host_origin = format!("http://127.0.0.1:{host_port}");
    let mut args = vec!["--board", "--http", "127.0.0.1:0"];
    if reach == Reach::Direct {
        args.extend(["--allow-origin", &host_origin]);
    }
    let server = HttpExample::start("notes-server", &args);
    let stdout = browser_test("board", era, &server.url, host_port, reach);
    // The checks that matter, by their exact lines (the test prints one per check).
    let wire = match (reach, era) {
        (Reach::Direct, _) => "ok wire: requests through the proxy = 0",
        (Reach::Proxied, "2026-07-28") => {
            "ok wire: first request, session ids, protocol-version headers after it = {\"first\":\"server/discover\",\"sessions\":[\"no\"],\"versions\":[\"2026-07-28\"]}"
        }
        (Reach::Proxied, _) => {
            "ok wire: first request, session ids, protocol-version headers after it = {\"first\":\"initialize\",\"sessions\":[\"yes\"],\"versions\":[\"2025-11-25\"]}"
        }
    };
    has_lines(
        &stdout,
        &[
            format!("ok host #protocol-version = \"{era}\""),
            wire.to_owned(),
            "ok host #app-only-tools = \"board_notes\"".to_owned(),
            "ok host #app-frame[sandbox] = \"allow-scripts allow-same-origin allow-forms\""
                .to_owned(),
            "ok app #tool-input = \"{}\"".to_owned(),
            "ok app note titles = [\"Shopping\",\"Ideas\"]".to_owned(),
            "ok app #theme = \"light\"".to_owned(),
            "ok app fetch to an undeclared origin = \"blocked connect-src\"".to_owned(),
            "ok app #last-action = \"added #3\"".to_owned(),
            "ok app last note title = \"Groceries\"".to_owned(),
            "ok app <html data-theme> = \"dark\"".to_owned(),
        ],
    );
}

#[test]
fn the_board_renders_in_a_browser_host_on_2025_11_25() {
    board_renders("2025-11-25", Reach::Proxied);
}

#[test]
fn the_board_renders_in_a_browser_host_on_2026_07_28() {
    board_renders("2026-07-28", Reach::Proxied);
}

#[test]
fn a_browser_host_on_another_origin_reaches_the_server_on_2025_11_25() {
    board_renders("2025-11-25", Reach::Direct);
}

#[test]
fn a_browser_host_on_another_origin_reaches_the_server_on_2026_07_28() {
    board_renders("2026-07-28", Reach::Direct);
}

/// The crate `mcp new --template app` writes, built and served over HTTP, renders in the same
/// host: its hand-written page speaks the protocol the official `AppBridge` speaks, shows the
/// count, and calls the app-only `increment` through the host.
#[test]
fn the_app_of_mcp_new_renders_in_a_browser_host() {
    let new = tests::scaffold::NewCrate::create("app", "hello-counter");
    let binary = new.build("hello-counter");
    for era in ["2025-11-25", "2026-07-28"] {
        // A fresh server per era: the count is the server's.
        let mut command = Command::new(&binary);
        command.args(["--http", &format!("127.0.0.1:{}", free_port())]);
        let server = HttpExample::spawn_announcing(command, "hello-counter: serving ");
        let stdout = browser_test("counter", era, &server.url, free_port(), Reach::Proxied);
        has_lines(
            &stdout,
            &[
                format!("ok host #protocol-version = \"{era}\""),
                "ok host #app-only-tools = \"increment\"".to_owned(),
                "ok app #count = \"0\"".to_owned(),
                "ok app #count = \"1\"".to_owned(),
                "ok app fetch to an undeclared origin = \"blocked connect-src\"".to_owned(),
                "ok app <html data-theme> = \"dark\"".to_owned(),
            ],
        );
    }
}
