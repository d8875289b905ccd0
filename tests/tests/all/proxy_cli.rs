//! `mcp proxy` between programs nobody here wrote: the official `server-everything` and
//! `server-filesystem` (npm) upstream, the official TypeScript and Python clients downstream.
//! The TypeScript client's transcript of every feature through the proxy must be the one it
//! gets from the server directly; the Python client speaks 2026-07-28 to the 2025-only server
//! through it.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use tests::interop::{
    HttpExample, interop_script, node, package_binary, python2, repo_root, run_command_json_lines,
};

const LIMIT: Duration = Duration::from_secs(120);

fn everything() -> PathBuf {
    interop_script("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// The transcript of `interop/everything_client.mjs` run with `args`.
fn typescript_transcript(args: &[&str]) -> Value {
    let mut command = Command::new(node());
    command
        .arg(interop_script("everything_client.mjs"))
        .args(args);
    let mut lines = run_command_json_lines(command, LIMIT);
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines.remove(0)
}

/// `mcp proxy --http 127.0.0.1:0 [extra] -- node server-everything stdio`, listening.
fn proxy_of_everything(extra: &[&str]) -> HttpExample {
    let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
    command
        .args(["proxy", "--http", "127.0.0.1:0"])
        .args(extra)
        .arg("--")
        .arg(node())
        .arg(everything())
        .arg("stdio");
    HttpExample::spawn(command)
}

/// `server-everything` serving `transport` (`streamableHttp` or `sse`) on a free port of the
/// loopback interface; its port.
fn everything_over(transport: &str) -> (HttpExample, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut command = Command::new(node());
    command
        .arg(everything())
        .arg(transport)
        .env("PORT", port.to_string());
    let announce = match transport {
        "sse" => "Server is running on port ",
        _ => "MCP Streamable HTTP Server listening on port ",
    };
    (HttpExample::spawn_announcing(command, announce), port)
}

/// The TypeScript client's transcript of the server itself, over stdio.
fn direct() -> Value {
    let node = node().display().to_string();
    let everything = everything().display().to_string();
    typescript_transcript(&["stdio", &node, &everything, "stdio"])
}

#[test]
fn the_typescript_client_sees_server_everything_through_the_proxy_as_it_is() {
    let direct = direct();
    // Every feature answered as the server answers it, the client's own answers included.
    assert_eq!(direct["echo"], json!(["Echo: hello"]));
    assert_eq!(direct["progress"], json!([[1, 3], [2, 3]]));
    assert_eq!(
        direct["elicitation"][1],
        "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Favorite Integer: 7"
    );
    assert!(
        direct["roots"][0].as_str().unwrap().starts_with(
            "Current MCP Roots (1 total):\n\n1. project\n   URI: file:///work/project"
        )
    );
    for flag in [
        "logged",
        "updated",
        "listChanged",
        "sessionResource",
        "cancelled",
    ] {
        assert_eq!(direct[flag], true, "{flag}");
    }
    assert_eq!(direct["transportErrors"], json!([]));

    let proxy = proxy_of_everything(&["--legacy-sse"]);
    let streamable = typescript_transcript(&["http", &proxy.url]);
    assert_eq!(streamable, direct);
    let sse = proxy.url.replace("/mcp", "/sse");
    assert_eq!(typescript_transcript(&["sse", &sse]), direct);
}

#[test]
fn the_proxy_gives_a_stdio_client_a_remote_server_of_either_http_transport() {
    let direct = direct();
    let mcp = package_binary("mcp-runtime-cli", "mcp")
        .display()
        .to_string();
    let (_streamable, port) = everything_over("streamableHttp");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut transcript = typescript_transcript(&["stdio", &mcp, "proxy", "--stdio", &url]);
    // Over HTTP the server names its session in its log line.
    assert_eq!(
        transcript["subscribeLog"],
        json!([
            "Received Subscribe Resource request for URI: demo://resource/static/document/architecture.md "
        ])
    );
    transcript["subscribeLog"] = direct["subscribeLog"].clone();
    assert_eq!(transcript, direct);
    // The old HTTP+SSE transport: its URL refuses the POSTs, and the proxy falls back to GET.
    let (_sse, port) = everything_over("sse");
    let url = format!("http://127.0.0.1:{port}/sse");
    assert_eq!(
        typescript_transcript(&["stdio", &mcp, "proxy", "--stdio", &url]),
        direct
    );
}

#[test]
fn a_2026_python_client_drives_the_2025_only_server_through_the_proxy() {
    let direct = direct();
    let proxy = proxy_of_everything(&[]);
    let mut command = Command::new(python2());
    command
        .arg(interop_script("everything_client_2026.py"))
        .args(["http", &proxy.url]);
    let transcript = run_command_json_lines(command, LIMIT).remove(0);
    assert_eq!(transcript["protocolVersion"], "2026-07-28");
    assert_eq!(transcript["serverInfo"], direct["server"]);
    // Sampling, elicitation and roots asked mid-call came back as input-required rounds, and
    // the server got the client's answers as a 2025 client gives them.
    for key in [
        "tools",
        "echo",
        "sum",
        "structured",
        "long",
        "sampling",
        "elicitation",
        "roots",
        "resources",
        "dynamic",
        "argsPrompt",
        "completion",
    ] {
        assert_eq!(transcript[key], direct[key], "{key}");
    }
    assert_eq!(
        transcript["progress"],
        json!([[1.0, 3.0], [2.0, 3.0], [3.0, 3.0]])
    );
}

#[test]
fn a_configuration_file_mounts_every_server_under_its_name() {
    let folder = std::env::temp_dir().join(format!("mcp-proxy-config-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    // The filesystem server names the folder as the system resolves it.
    let folder = folder.canonicalize().unwrap();
    std::fs::write(folder.join("hello.txt"), "hello from the filesystem").unwrap();
    let config = folder.join("claude_desktop_config.json");
    let filesystem =
        interop_script("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    std::fs::write(
        &config,
        serde_json::to_string(&json!({"mcpServers": {
            "everything": {"command": node(), "args": [everything(), "stdio"]},
            "files": {"command": node(), "args": [filesystem, &folder]},
            "broken": {"command": repo_root().join("no-such-program")},
        }}))
        .unwrap(),
    )
    .unwrap();
    let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
    command
        .args(["proxy", "--http", "127.0.0.1:0", "--config"])
        .arg(&config);
    let proxy = HttpExample::spawn(command);
    let mcp = package_binary("mcp-runtime-cli", "mcp");
    let run = |args: &[&str]| {
        let output = Command::new(&mcp).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let tools = run(&["list", "tools", &proxy.url, "--json"]);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"everything_echo"), "{names:?}");
    assert!(names.contains(&"files_read_text_file"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("broken")), "{names:?}");
    let echoed = run(&[
        "call",
        &proxy.url,
        "everything_echo",
        "message=hi",
        "--json",
    ]);
    assert_eq!(echoed["content"][0]["text"], "Echo: hi");
    let path = folder.join("hello.txt").display().to_string();
    let read = run(&[
        "call",
        &proxy.url,
        "files_read_text_file",
        &format!("path={path}"),
        "--json",
    ]);
    assert_eq!(read["content"][0]["text"], "hello from the filesystem");
    drop(proxy);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn proxies_sharing_a_redis_serve_one_deployment() {
    let redis = tests::redis::RedisServer::start();
    let key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    let start = || {
        let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
        command
            .args(["proxy", "--http", "127.0.0.1:0", "--redis", &redis.url()])
            .env("MCP_REQUEST_STATE_KEY", key)
            .arg("--")
            .arg(node())
            .arg(everything())
            .arg("stdio");
        HttpExample::spawn(command)
    };
    let (first, second) = (start(), start());
    // Each proxy serves, keeping its sessions in the shared Redis.
    let mcp = package_binary("mcp-runtime-cli", "mcp");
    for proxy in [&first, &second] {
        let output = Command::new(&mcp)
            .args(["call", &proxy.url, "get-sum", "a=2", "b=3", "--json"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(result["content"][0]["text"], "The sum of 2 and 3 is 5.");
    }
    // A 2025 session opened on one proxy goes on on the other.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let answered = runtime.block_on(async {
        let http = reqwest::Client::new();
        let post = |url: &str, session: Option<&str>, body: Value| {
            let mut request = http
                .post(url)
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .json(&body);
            if let Some(session) = session {
                request = request.header("mcp-session-id", session);
            }
            request.send()
        };
        let opened = post(
            &first.url,
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
        )
        .await
        .unwrap();
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(&first.url, Some(&session), initialized).await.unwrap();
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"message": "across"}}});
        let answer = post(&second.url, Some(&session), call).await.unwrap();
        assert!(answer.status().is_success(), "{}", answer.status());
        let body = answer.text().await.unwrap();
        let data = body
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap_or(&body)
            .to_owned();
        serde_json::from_str::<Value>(&data).unwrap()
    });
    assert_eq!(answered["result"]["content"][0]["text"], "Echo: across");
    // Without the key the proxies could not open each other's requestState: refused.
    let refused = Command::new(package_binary("mcp-runtime-cli", "mcp"))
        .args([
            "proxy",
            "--http",
            "127.0.0.1:0",
            "--redis",
            &redis.url(),
            "--",
            "true",
        ])
        .env_remove("MCP_REQUEST_STATE_KEY")
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim(),
        "mcp: --redis needs --request-state-key (or MCP_REQUEST_STATE_KEY): every proxy of the \
         deployment must seal requestState with the same key; make one with `head -c 32 \
         /dev/urandom | base64`"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proxy_asks_for_tokens_of_its_issuer_and_answers_its_host_names() {
    let issuer = tests::authorization_server::AuthorizationServer::start().await;
    let mut command = Command::new(package_binary("mcp-runtime-cli", "mcp"));
    command
        .args([
            "proxy",
            "--http",
            "127.0.0.1:0",
            "--host",
            "mcp.example.test",
        ])
        .args(["--auth-issuer", issuer.issuer(), "--"])
        .arg(node())
        .arg(everything())
        .arg("stdio");
    let proxy = HttpExample::spawn(command);
    let call = |token: String| {
        let url = proxy.url.clone();
        async move {
            tests::http::call_tool_with_token(&url, &token, "echo", json!({"message": "hi"})).await
        }
    };
    // Without a token of the issuer for the proxy's URI: 401, naming the resource metadata.
    let (status, challenge) = call("not-a-token".to_owned()).await;
    assert_eq!(status, 401);
    let challenge = challenge.unwrap();
    assert!(
        challenge.contains("resource_metadata=\"http://127.0.0.1:"),
        "{challenge}"
    );
    let token = issuer.token().audience(proxy.url.as_str()).sign();
    assert_eq!(call(token).await, (200, None));
    // The host names: the one given, and the loopback ones; no other.
    let http = reqwest::Client::new();
    let port = proxy
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp");
    for (host, status) in [
        (format!("mcp.example.test:{port}"), 401),
        (format!("localhost:{port}"), 401),
        (format!("evil.example.test:{port}"), 403),
    ] {
        let answer = http
            .post(&proxy.url)
            .header("host", &host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status().as_u16(), status, "{host}");
    }
}
