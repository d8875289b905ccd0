//! The `mcp` command-line tool (the `mcp-cli` package) against `notes-server`, over stdio and
//! HTTP, on both eras: what it prints, exactly, and the one line and exit status of a failure.

use std::process::{Command, Output};

use tests::interop::{HttpExample, NOTES_TOOLS, example_binary, node, package_binary};

/// Runs `mcp` with `args`.
fn mcp(args: &[&str]) -> Output {
    Command::new(package_binary("mcp-runtime-cli", "mcp"))
        .args(args)
        .output()
        .expect("mcp runs")
}

/// Runs `mcp ARGS -- notes-server` (a server on stdio).
fn on_stdio(args: &[&str]) -> Output {
    let server = example_binary("notes-server");
    let mut all = args.to_vec();
    all.push("--");
    all.push(server.to_str().expect("a UTF-8 path"));
    mcp(&all)
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "mcp failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

/// The one line a failed command prints, and its exit status.
fn failure(output: &Output) -> (String, Option<i32>) {
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    (
        String::from_utf8(output.stderr.clone()).expect("UTF-8 errors"),
        output.status.code(),
    )
}

#[test]
fn call_types_arguments_from_the_schema_on_both_eras_and_transports() {
    let http = HttpExample::start("notes-server", &["--http", "127.0.0.1:0"]);
    for version in ["2025-11-25", "2026-07-28"] {
        let args = ["--protocol-version", version, "call", "add", "a=2", "b=40"];
        assert_eq!(stdout(&on_stdio(&args)), "42\n", "stdio {version}");
        let args = [
            "--protocol-version",
            version,
            "call",
            &http.url,
            "add",
            "{\"a\": 1, \"b\": 2}",
        ];
        assert_eq!(stdout(&mcp(&args)), "3\n", "http {version}");
    }
}

#[test]
fn structured_results_print_as_json_once() {
    // The tool's text repeats its structured content: mcp prints it once, as pretty JSON.
    let output = stdout(&on_stdio(&[
        "call",
        "search_notes",
        "text=shopping",
        "limit=1",
    ]));
    let structured: serde_json::Value = serde_json::from_str(&output).expect("only the JSON");
    assert_eq!(
        structured,
        serde_json::json!({"notes": [{"id": 1, "title": "Shopping",
            "body": "Milk, bread and coffee.", "tags": ["home"]}]})
    );
    assert_eq!(
        output,
        format!("{}\n", serde_json::to_string_pretty(&structured).unwrap())
    );
}

#[test]
fn log_messages_show_on_stderr_and_elicitations_are_declined_off_a_terminal() {
    for version in ["2025-11-25", "2026-07-28"] {
        let output = on_stdio(&["--protocol-version", version, "call", "word_count"]);
        assert!(output.status.success());
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "[info] counted 2 notes\n",
            "{version}"
        );
    }
    let output = on_stdio(&["call", "delete_note", "id=1"]);
    assert_eq!(stdout(&output), "Kept note 1.\n");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "mcp: the server asks \"Delete the note \"Shopping\"?\"; declined: mcp asks only on a terminal\n"
    );
}

#[test]
fn inspect_summarizes_the_server() {
    let output = stdout(&on_stdio(&["inspect"]));
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines[0], format!("examples {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(lines[1], "protocol 2026-07-28 (stateless)");
    assert_eq!(
        lines[2],
        "capabilities: logging; completions; prompts; resources; tools; extensions: \
         io.modelcontextprotocol/skills, io.modelcontextprotocol/tasks"
    );
    assert_eq!(
        lines[3],
        "instructions: A notebook: add, search, count, summarize and delete notes."
    );
    assert_eq!(lines[5], "tools (7):");
    assert_eq!(lines[6], "  add: Add two integers.");
    assert!(
        output.contains(
            "\nprompts (1):\n  review_note(id, focus?): Ask the model to review a note.\n"
        )
    );
    assert!(output.contains("\nresource templates (1):\n  notes://{id}: One note, as Markdown.\n"));
    let handshake = stdout(&on_stdio(&["--protocol-version", "2025-11-25", "inspect"]));
    assert_eq!(
        handshake.lines().nth(1),
        Some("protocol 2025-11-25 (handshake)")
    );
}

#[test]
fn list_read_prompt_and_ping() {
    let tools = stdout(&on_stdio(&["list", "tools"]));
    assert_eq!(
        tools
            .lines()
            .map(|l| l.split(':').next().unwrap())
            .collect::<Vec<_>>(),
        NOTES_TOOLS
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&on_stdio(&["list", "templates", "--json"]))).unwrap();
    assert_eq!(json[0]["uriTemplate"], "notes://{id}");
    assert_eq!(
        stdout(&on_stdio(&["read", "notes://1"])),
        "# Shopping\n\nMilk, bread and coffee.\n\nTags: home\n\n"
    );
    let prompt = stdout(&on_stdio(&["prompt", "review_note", "id=1"]));
    assert!(
        prompt.starts_with("[user] Please review this note.\n\n# Shopping\n"),
        "{prompt}"
    );
    for version in ["2025-11-25", "2026-07-28"] {
        let ping = stdout(&on_stdio(&["--protocol-version", version, "ping"]));
        assert!(
            ping.starts_with("ok (") && ping.ends_with(" ms)\n"),
            "{ping}"
        );
    }
}

#[test]
fn failures_are_one_line_and_status_1() {
    assert_eq!(
        failure(&on_stdio(&["call", "add", "a=two"])),
        (
            "mcp: argument a: \"two\" is not an integer\n".into(),
            Some(1)
        )
    );
    // Arguments that break the input schema are refused before the call.
    assert_eq!(
        failure(&on_stdio(&["call", "add_note"])),
        (
            "mcp: the arguments of add_note break its input schema: \"title\" is a required \
             property; \"body\" is a required property (mcp inspect shows the schema)\n"
                .into(),
            Some(1)
        )
    );
    // An error result is its one line, not also printed as output.
    assert_eq!(
        failure(&on_stdio(&["call", "delete_note", "id=999"])),
        (
            "mcp: the tool delete_note failed: there is no note 999\n".into(),
            Some(1)
        )
    );
    // With --json, the result is the output, and the line says only that the tool failed.
    let output = on_stdio(&["--json", "call", "delete_note", "id=999"]);
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        (
            &result["content"],
            &result["isError"],
            String::from_utf8_lossy(&output.stderr).as_ref(),
            output.status.code()
        ),
        (
            &serde_json::json!([{"type": "text", "text": "there is no note 999"}]),
            &serde_json::json!(true),
            "mcp: the tool delete_note failed\n",
            Some(1)
        )
    );
    // The usage follows the target: the URL first, or everything before the command.
    assert_eq!(
        failure(&on_stdio(&["call"])),
        (
            "mcp: name the tool to call: mcp call TOOL [name=value ...] -- COMMAND [ARGS ...] \
             (everything after `--` is the server's command line)\n"
                .into(),
            Some(1)
        )
    );
    assert_eq!(
        failure(&mcp(&["read", "http://127.0.0.1:9/mcp"])),
        (
            "mcp: name the resource to read: mcp read URL URI\n".into(),
            Some(1)
        )
    );
    assert_eq!(
        failure(&on_stdio(&["call", "nope"])),
        (
            "mcp: the server has no tool \"nope\"; it has: add, add_note, search_notes, \
             delete_note, word_count, summarize_note, export_notes\n"
                .into(),
            Some(1)
        )
    );
    assert_eq!(
        failure(&mcp(&["list", "tools", "notaurl"])),
        (
            "mcp: \"notaurl\" is not a server: give an http(s) URL, or the command that starts \
             the server after `--`\n"
                .into(),
            Some(1)
        )
    );
    let (line, status) = failure(&mcp(&["ping", "http://127.0.0.1:9/mcp"]));
    assert_eq!(status, Some(1));
    assert!(
        line.starts_with("mcp: cannot connect to http://127.0.0.1:9/mcp: ")
            && line.ends_with("Connection refused (os error 111)\n")
            && line.lines().count() == 1,
        "{line}"
    );
    // An HTTP server that is not MCP: its error page is not dumped on the terminal.
    let web = HttpExample::start("notes-server", &["--http", "127.0.0.1:0"]);
    let elsewhere = web.url.replace("/mcp", "/elsewhere");
    let (line, status) = failure(&mcp(&["ping", &elsewhere]));
    assert_eq!(status, Some(1));
    assert_eq!(
        line,
        format!(
            "mcp: cannot connect to {elsewhere}: initialize: the server answered 404 Not Found \
             without a response: check that {elsewhere} is the server's MCP endpoint\n"
        )
    );
    // A server that dies during the call.
    let crashing = tests::interop::python();
    let output = mcp(&[
        "call",
        "boom",
        "--",
        crashing.to_str().unwrap(),
        "-c",
        CRASHING_SERVER,
    ]);
    assert_eq!(
        failure(&output),
        (
            "mcp: calling boom failed: the connection to the server is closed\n".into(),
            Some(1)
        )
    );
    let (line, status) = failure(&mcp(&["ping", "--", "/nonexistent/server"]));
    assert_eq!(
        (line.as_str(), status),
        (
            "mcp: cannot start /nonexistent/server: cannot start the server: No such file or \
             directory (os error 2)\n",
            Some(1)
        )
    );
}

/// A server on stdio that answers `initialize` and `tools/list` (one tool, `boom`), and exits
/// when the tool is called.
const CRASHING_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "crashing", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "boom", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        sys.exit(3)
    elif id is None:
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": id,
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}), flush=True)
"#;

/// Reads the notes, for the signed-in user.
#[mcp_runtime::prelude::mcp_tool(scopes = "notes:read")]
async fn read_notes(#[ctx] token: mcp_runtime::prelude::AccessToken) -> String {
    format!("notes of {}", token.subject().unwrap_or("nobody"))
}

/// `mcp` signs in on one port (127.0.0.1:28418): the tests that sign in take turns.
static SIGN_IN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `mcp` run by a user who signs in: a home of its own (for the tokens file), and a "browser"
/// that follows the authorization server's redirects back to `mcp` (Node's fetch follows
/// redirects), as a user who approves at once would. Holds the sign-in port until dropped.
struct SigningIn {
    home: std::path::PathBuf,
    browser: String,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

impl SigningIn {
    async fn new() -> Self {
        let turn = SIGN_IN.lock().await;
        let home =
            std::env::temp_dir().join(format!("mcp-cli-home-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&home).unwrap();
        let script = home.join("browser.js");
        std::fs::write(&script, "fetch(process.argv[2]).then((r) => r.text());\n").unwrap();
        SigningIn {
            browser: format!("{} {} %s", node().display(), script.display()),
            home,
            _turn: turn,
        }
    }

    /// Runs `mcp ARGS` with the environment variables `env` (and no client of the test's own
    /// environment).
    async fn mcp(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
        command
            .args(args)
            .env("XDG_CONFIG_HOME", &self.home)
            .env("BROWSER", &self.browser)
            .env_remove("MCP_CLIENT_ID")
            .env_remove("MCP_CLIENT_SECRET")
            .envs(env.iter().copied());
        tokio::task::spawn_blocking(move || command.output().expect("mcp runs"))
            .await
            .unwrap()
    }
}

impl Drop for SigningIn {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// A server of `read_notes` whose tokens are JWTs of `issuer` granting `notes:read`.
async fn protected_server(
    issuer: &tests::authorization_server::AuthorizationServer,
) -> tests::http::TestHttpServer {
    use mcp_runtime::auth::ResourceServer;
    use mcp_runtime::prelude::*;
    use mcp_runtime::transport::http::HttpOptions;

    let issuer = issuer.issuer().to_owned();
    let server = McpServer::from_module(server_info!(), module_path!())
        .build()
        .unwrap();
    tests::http::TestHttpServer::start_with(server, |url| {
        HttpOptions::default()
            .authorization(ResourceServer::jwt(issuer, url).require_scopes(["notes:read"]))
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_protected_server_signs_the_user_in_once_and_the_tokens_are_kept() {
    use tests::authorization_server::{AuthorizationServer, Options};

    let issuer = AuthorizationServer::start_with(Options::default().code_flow()).await;
    let http = protected_server(&issuer).await;
    let user = SigningIn::new().await;
    let first = user.mcp(&["call", &http.url, "read_notes"], &[]).await;
    assert_eq!(stdout(&first), "notes of user-1\n");
    assert_eq!(issuer.registrations(), 1);
    assert_eq!(issuer.authorization_requests().len(), 1);
    // The second run uses the kept tokens: nobody signs in again.
    let second = user.mcp(&["call", &http.url, "read_notes"], &[]).await;
    assert_eq!(stdout(&second), "notes of user-1\n");
    assert_eq!(issuer.authorization_requests().len(), 1);
    let tokens = user.home.join("mcp/tokens.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&tokens).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pre_registered_client_signs_in_where_mcp_cannot_register_itself() {
    use tests::authorization_server::{AuthorizationServer, Options};

    const REDIRECT_URI: &str = "http://127.0.0.1:28418/callback";
    let user = SigningIn::new().await;
    // Output that shows no secret.
    let shown = |output: &Output, secret: &str| {
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!all.contains(secret), "{all}");
        output.clone()
    };

    // Without a client, the error says how to give one.
    let issuer =
        AuthorizationServer::start_with(Options::default().code_flow().without_registration())
            .await;
    let http = protected_server(&issuer).await;
    let url = http.url.as_str();
    assert_eq!(
        failure(&user.mcp(&["call", url, "read_notes"], &[]).await),
        (
            format!(
                "mcp: cannot connect to {url}: the authorization server {} offers no dynamic \
                 client registration, so mcp cannot register itself there: register a client \
                 there with the redirect URI http://127.0.0.1:28418/callback, then give its ID \
                 with --client-id or MCP_CLIENT_ID, and its secret, if it has one, in \
                 MCP_CLIENT_SECRET or with --client-secret-file\n",
                issuer.issuer()
            ),
            Some(1)
        )
    );
    assert_eq!(issuer.authorization_requests().len(), 0);

    // A confidential client the administrator registered, with client_secret_basic (the first
    // method the metadata lists): its ID on the command line, its secret in the environment.
    let (client_id, secret) = issuer.register_client(REDIRECT_URI, "client_secret_basic");
    let output = user
        .mcp(
            &["call", url, "read_notes", "--client-id", &client_id],
            &[("MCP_CLIENT_SECRET", &secret)],
        )
        .await;
    assert_eq!(stdout(&shown(&output, &secret)), "notes of user-1\n");
    let requests = issuer.authorization_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].client_id, client_id);
    assert_eq!(requests[0].redirect_uri, REDIRECT_URI);
    assert_eq!(issuer.token_requests("authorization_code"), 1);
    assert_eq!(issuer.registrations(), 0);

    // A wrong secret, on the command line: refused, and not shown.
    let wrong = "wrong-secret-7c2e";
    let fresh = protected_server(&issuer).await;
    let output = user
        .mcp(
            &[
                "call",
                &fresh.url,
                "read_notes",
                "--client-id",
                &client_id,
                "--client-secret",
                wrong,
            ],
            &[],
        )
        .await;
    // (The lines before the last are the sign-in's: the URL the browser opens.)
    let (errors, status) = failure(&shown(&output, wrong));
    assert_eq!(
        (errors.lines().last(), status),
        (
            Some(
                format!(
                    "mcp: cannot connect to {}: server/discover: the authorization server {} \
                     refused the token request: invalid_client (the client did not authenticate \
                     as it registered (client_secret_basic))",
                    fresh.url,
                    issuer.issuer()
                )
                .as_str()
            ),
            Some(1)
        )
    );

    // Where the authorization server takes client_secret_post only: the client ID in the
    // environment, the secret in a file.
    let issuer = AuthorizationServer::start_with(
        Options::default()
            .code_flow()
            .without_registration()
            .token_endpoint_auth_methods(["client_secret_post"]),
    )
    .await;
    let http = protected_server(&issuer).await;
    let (client_id, secret) = issuer.register_client(REDIRECT_URI, "client_secret_post");
    let file = user.home.join("client-secret");
    std::fs::write(&file, format!("{secret}\n")).unwrap();
    let output = user
        .mcp(
            &[
                "call",
                &http.url,
                "read_notes",
                "--client-secret-file",
                file.to_str().unwrap(),
            ],
            &[("MCP_CLIENT_ID", &client_id)],
        )
        .await;
    assert_eq!(stdout(&shown(&output, &secret)), "notes of user-1\n");
    assert_eq!(issuer.authorization_requests()[0].client_id, client_id);
    assert_eq!(issuer.token_requests("authorization_code"), 1);
    assert_eq!(issuer.registrations(), 0);
}

/// `mcp new` writes a crate that builds and passes its own test, with the SDK of this
/// checkout as a path dependency.
#[test]
fn a_new_crate_builds_and_passes_its_test() {
    new_crate_passes("server", "hello-mcp");
}

/// `mcp new --template app` writes an app server that builds and passes its own test.
#[test]
fn a_new_app_builds_and_passes_its_test() {
    new_crate_passes("app", "hello-app");
}

/// Creates the crate `name` from `template` and runs its tests, which are two.
fn new_crate_passes(template: &str, name: &str) {
    let new = tests::scaffold::NewCrate::create(template, name);
    assert!(
        new.created
            .starts_with(&format!("created {name} in {}\n", new.dir.display()))
    );
    let tested = new.cargo(&["test", "--quiet"]);
    let report = String::from_utf8_lossy(&tested.stdout);
    assert!(
        tested.status.success(),
        "the new crate failed its test:\n{report}\n{}",
        String::from_utf8_lossy(&tested.stderr)
    );
    assert!(report.contains("test result: ok. 2 passed"), "{report}");
}

#[test]
fn arguments_of_prompts_and_templates_complete() {
    assert_eq!(
        stdout(&on_stdio(&[
            "complete",
            "prompt",
            "review_note",
            "focus=cl"
        ])),
        "clarity\n"
    );
    assert_eq!(
        stdout(&on_stdio(&["complete", "template", "notes://{id}", "id="])),
        "1\n2\n"
    );
    assert_eq!(
        failure(&on_stdio(&["complete", "widget", "x", "a=b"])),
        (
            "mcp: \"widget\" is neither prompt nor template: mcp complete URL prompt NAME \
             arg=partial, or mcp complete URL template URI variable=partial\n"
                .into(),
            Some(1)
        )
    );
}

/// Runs `mcp --json bench ARGS` and returns its summary.
fn bench(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--json", "bench"];
    all.extend_from_slice(args);
    let output = stdout(&mcp(&all));
    serde_json::from_str(&output).expect("one line of JSON")
}

/// Asserts what a load run reports: its mode, wire, tool and concurrency, requests made and
/// none failed.
fn assert_measured(summary: &serde_json::Value, mode: &str, wire: &str, tool: &str, c: u64) {
    assert_eq!(summary["mode"], mode, "{summary}");
    assert_eq!(summary["wire"], wire, "{summary}");
    assert_eq!(summary["tool"], tool, "{summary}");
    assert_eq!(summary["concurrency"], c, "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
    assert_eq!(summary["error_kinds"], serde_json::json!({}), "{summary}");
    assert!(summary["requests"].as_u64().unwrap() > 0, "{summary}");
    let (p50, p99, max) = (&summary["p50_us"], &summary["p99_us"], &summary["max_us"]);
    assert!(p50.as_u64().unwrap() <= p99.as_u64().unwrap(), "{summary}");
    assert!(p99.as_u64().unwrap() <= max.as_u64().unwrap(), "{summary}");
}

#[test]
fn bench_loads_a_server_over_http_and_stdio_on_the_era_it_speaks() {
    let http = HttpExample::start("notes-server", &["--http", "127.0.0.1:0"]);
    let load = [
        "--tool",
        "add",
        "--args",
        r#"{"a":1,"b":2}"#,
        "-d",
        "0.3",
        "--warmup",
        "0.1",
    ];
    // The wire is the era the server agrees to, or the one --protocol-version names.
    let mut args = vec![http.url.as_str(), "-c", "3"];
    args.extend_from_slice(&load);
    assert_measured(&bench(&args), "http", "stateless", "add", 3);
    let mut handshake = vec!["--protocol-version", "2025-11-25"];
    handshake.extend_from_slice(&args);
    assert_measured(&bench(&handshake), "http", "session", "add", 3);
    let server = example_binary("notes-server");
    let mut args = vec!["-c", "4"];
    args.extend_from_slice(&load);
    args.extend_from_slice(&["--", server.to_str().unwrap()]);
    let summary = bench(&args);
    assert_measured(&summary, "stdio", "stateless", "add", 4);
    assert!(summary["peak_rss_kib"].as_u64().unwrap() > 0, "{summary}");

    // A tool the server lacks is named before any load.
    let output = mcp(&["bench", &http.url, "--tool", "nope", "-d", "0.3"]);
    assert_eq!(
        failure(&output),
        (
            format!(
                "mcp: the server has no tool \"nope\"; it has: {}\n",
                NOTES_TOOLS.join(", ")
            ),
            Some(1)
        )
    );
    // Arguments the tool refuses: every call fails, the first failure is shown, status 1.
    let output = mcp(&[
        "bench", &http.url, "--tool", "add", "-d", "0.2", "--warmup", "0",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(
        errors.starts_with("mcp bench: first error (tool_error): tools/call: HTTP 200, body ("),
        "{errors}"
    );
    let why = r#""text":"Invalid arguments for tool add: \"a\" is a required property""#;
    assert!(errors.contains(why), "{errors}");
    assert!(
        errors.ends_with("\nmcp: every request failed\n"),
        "{errors}"
    );

    // The memory each idle session costs a stateful server.
    let stateful = HttpExample::start("bench-server", &["http", "127.0.0.1:0", "--stateful"]);
    let pid = stateful.pid().to_string();
    let args = [
        &stateful.url,
        "--idle-sessions",
        "20",
        "--pid",
        &pid,
        "-c",
        "2",
    ];
    let summary = bench(&[&args[..], &["--settle", "0", "--delete"]].concat());
    assert_eq!(summary["mode"], "sessions", "{summary}");
    assert_eq!(summary["requests"], 20, "{summary}");
    assert_eq!(summary["errors"], 0, "{summary}");
    assert!(summary["rss_after_kib"].as_u64().is_some(), "{summary}");
}

#[test]
fn a_call_run_as_a_task_shows_its_states_until_done() {
    let http = HttpExample::start("notes-server", &["--http", "127.0.0.1:0"]);
    let document = "# Shopping\n\nMilk, bread and coffee.\n\nTags: home\n\n# Ideas\n\n\
                    Write an MCP server in Rust.\n\nTags: work, rust\n\n\n";
    let runs = [
        on_stdio(&[
            "--protocol-version",
            "2025-11-25",
            "call",
            "--task",
            "export_notes",
            "pause_ms=5",
        ]),
        mcp(&[
            "--protocol-version",
            "2025-11-25",
            "call",
            "--task",
            &http.url,
            "export_notes",
            "pause_ms=5",
        ]),
        // On 2026-07-28 the server decides: this tool becomes a task after 1 s.
        mcp(&["call", "--task", &http.url, "export_notes", "pause_ms=600"]),
    ];
    for output in runs {
        assert_eq!(stdout(&output), document);
        let states = String::from_utf8(output.stderr).unwrap();
        let id = states
            .strip_prefix("task ")
            .and_then(|rest| rest.split(':').next())
            .unwrap_or_else(|| panic!("no task state: {states:?}"));
        assert_eq!(
            states,
            format!("task {id}: working\ntask {id}: completed\n")
        );
    }
}

/// The command that runs `interop/py_server.py` (the official Python SDK's FastMCP) on `mode`.
fn python_server(mode: &str) -> Command {
    let mut command = Command::new(tests::interop::python());
    command
        .arg(tests::interop::interop_script("py_server.py"))
        .arg(mode);
    command
}

/// The command that runs `interop/ts_server.mjs` (the official TypeScript SDK) on `mode`.
fn typescript_server(mode: &str) -> Command {
    let mut command = Command::new(node());
    command
        .arg(tests::interop::interop_script("ts_server.mjs"))
        .arg(mode);
    command
}

#[test]
fn mcp_explores_calls_and_loads_servers_written_with_other_sdks() {
    // (server, its name line, a call, what it prints, its arguments as JSON, what `count`
    // prints)
    let cases = [
        (
            typescript_server as fn(&str) -> Command,
            "ts-interop-server 1.0.0",
            ["add", "a=2", "b=3"],
            "5\n{\n  \"sum\": 5\n}\n",
            r#"{"a":2,"b":3}"#,
            "counted to 2\n",
        ),
        (
            python_server,
            "py-interop-server 1.30.0",
            ["multiply", "a=6", "b=7"],
            "42\n{\n  \"result\": 42\n}\n",
            r#"{"a":6,"b":7}"#,
            // FastMCP gives every tool an output schema, so the text comes back structured too.
            "counted to 2\n{\n  \"result\": \"counted to 2\"\n}\n",
        ),
    ];
    for (server, name, call, printed, args, count_printed) in cases {
        let http = HttpExample::spawn(server("http"));
        let stdio = server("stdio");
        let mut command: Vec<&str> = vec!["--", stdio.get_program().to_str().unwrap()];
        command.extend(stdio.get_args().map(|a| a.to_str().unwrap()));
        let targets = [vec![http.url.as_str()], vec![]];
        for target in &targets {
            // The target: the URL first, or the command last.
            let run = |args: &[&str]| {
                let mut all = args[..1].to_vec();
                all.extend_from_slice(target);
                all.extend_from_slice(&args[1..]);
                if target.is_empty() {
                    all.extend_from_slice(&command);
                }
                mcp(&all)
            };
            let inspected = stdout(&run(&["inspect"]));
            let lines: Vec<&str> = inspected.lines().take(2).collect();
            assert_eq!(
                lines,
                [name, "protocol 2025-11-25 (handshake)"],
                "{target:?}"
            );
            assert_eq!(stdout(&run(&["call", call[0], call[1], call[2]])), printed);
            assert_eq!(stdout(&run(&["read", "test://users/7"])), "user 7\n");
            let counted = run(&["call", "count", "n=2"]);
            assert_eq!(stdout(&counted), count_printed, "{target:?}");
            if !target.is_empty() {
                // Over stdio the server's own stderr is the terminal's too.
                assert_eq!(
                    String::from_utf8_lossy(&counted.stderr),
                    "[info] step 1\n[info] step 2\n"
                );
            }
            let mut load = vec!["bench"];
            load.extend_from_slice(target);
            load.extend_from_slice(&["--tool", call[0], "--args", args, "-c", "2", "-d", "0.5"]);
            load.extend_from_slice(&["--warmup", "0.2"]);
            if target.is_empty() {
                load.extend_from_slice(&command);
            }
            let summary = bench(&load[1..]);
            let mode = if target.is_empty() { "stdio" } else { "http" };
            assert_measured(&summary, mode, "session", call[0], 2);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_proxy_gives_a_stdio_client_a_protected_server_signing_in_as_mcp_does() {
    use mcp_runtime::client::McpClient;
    use tests::authorization_server::{AuthorizationServer, Options};

    let issuer = AuthorizationServer::start_with(Options::default().code_flow()).await;
    let http = protected_server(&issuer).await;
    let user = SigningIn::new().await;
    let mut command = tokio::process::Command::new(package_binary("mcp-runtime-cli", "mcp"));
    command
        .args(["proxy", "--stdio", &http.url])
        .env("XDG_CONFIG_HOME", &user.home)
        .env("BROWSER", &user.browser)
        .env_remove("MCP_CLIENT_ID")
        .env_remove("MCP_CLIENT_SECRET");
    let client = McpClient::builder(mcp_runtime::server_info!())
        .connect_stdio(command)
        .await
        .unwrap();
    let notes = client
        .call_tool("read_notes", serde_json::json!({}))
        .await
        .unwrap();
    assert_eq!(notes.content[0].as_text(), Some("notes of user-1"));
    assert_eq!(issuer.authorization_requests().len(), 1);
    client.close().await.unwrap();
}
