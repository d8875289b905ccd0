//! Support for the tests of the Cloudflare Workers example (`examples/cloudflare-worker`): the
//! worker as `worker-build` built it (`scripts/build-worker.sh` builds it, and installs the tools),
//! run in `workerd`, Cloudflare's runtime (npm's `workerd`), on a free loopback port, with the
//! variables it is given, and stopped on drop.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::free_port;
use crate::interop::repo_root;

/// The files `worker-build` writes, as the worker's modules: the entry point first (wrangler.toml's
/// `main`).
const MODULES: [(&str, &str); 2] = [("index.js", "esModule"), ("index_bg.wasm", "wasm")];

/// The example's folder.
fn example() -> PathBuf {
    repo_root().join("examples/cloudflare-worker")
}

/// The worker's build output; panics with what to run when it is missing.
fn build() -> PathBuf {
    let build = example().join("build");
    for (module, _) in MODULES {
        assert!(
            build.join(module).is_file(),
            "{} is missing: run scripts/build-worker.sh (scripts/test.sh does) before the tests of \
             the Cloudflare Workers example",
            build.join(module).display()
        );
    }
    build
}

/// The `workerd` binary of the example's `node_modules` (npm's package runs it through Node; its
/// platform package holds the binary itself, which is what the test stops).
fn workerd() -> PathBuf {
    let binary = example().join("node_modules/@cloudflare/workerd-linux-64/bin/workerd");
    assert!(
        binary.is_file(),
        "{} is missing: run scripts/build-worker.sh (scripts/test.sh does) before the tests of \
         the Cloudflare Workers example",
        binary.display()
    );
    binary
}

/// The example worker running in `workerd`, stopped on drop.
pub struct Workerd {
    child: Child,
    /// Its folder: the configuration and a copy of the modules.
    folder: PathBuf,
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl Workerd {
    /// Starts the worker with `variables` (name, text) as its environment's variables on a free
    /// port, and waits until it listens.
    pub fn start(variables: &[(&str, &str)]) -> Workerd {
        Self::start_on(free_port(), variables)
    }

    /// Starts the worker on `port` (for variables that name its URL), and waits until it listens.
    pub fn start_on(port: u16, variables: &[(&str, &str)]) -> Workerd {
        let folder =
            std::env::temp_dir().join(format!("mcp-workerd-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a folder for workerd");
        let build = build();
        for (module, _) in MODULES {
            std::fs::copy(build.join(module), folder.join(module)).expect("the worker's modules");
        }
        std::fs::write(folder.join("config.capnp"), config(port, variables))
            .expect("workerd's configuration");
        let child = Command::new(workerd())
            .arg("serve")
            .arg(folder.join("config.capnp"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("workerd starts");
        let workerd = Workerd {
            child,
            folder,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "workerd did not listen on port {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        workerd
    }
}

impl Drop for Workerd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// workerd's configuration (Cap'n Proto text): one worker of the modules beside it, with the
/// compatibility date of the example's wrangler.toml and `variables` as text bindings, served on
/// `127.0.0.1:port`. Its `fetch` reaches loopback addresses only (the service `internet` is
/// where a worker's requests go).
fn config(port: u16, variables: &[(&str, &str)]) -> String {
    let modules: Vec<String> = MODULES
        .iter()
        .map(|(name, kind)| format!("(name = {name:?}, {kind} = embed {name:?})"))
        .collect();
    let bindings: Vec<String> = variables
        .iter()
        .map(|(name, text)| format!("(name = {name:?}, text = {})", capnp_string(text)))
        .collect();
    format!(
        r#"using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:{port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [{modules}],
  bindings = [{bindings}],
  compatibilityDate = "{date}",
);
"#,
        modules = modules.join(", "),
        bindings = bindings.join(", "),
        date = compatibility_date(),
    )
}

/// The `compatibility_date` of the example's wrangler.toml, which workerd's must equal.
fn compatibility_date() -> String {
    let wrangler = std::fs::read_to_string(example().join("wrangler.toml")).expect("wrangler.toml");
    wrangler
        .lines()
        .find_map(|line| line.strip_prefix("compatibility_date = "))
        .expect("wrangler.toml has a compatibility_date")
        .trim_matches('"')
        .to_owned()
}

/// `text` as a Cap'n Proto string literal (its escapes are C's).
fn capnp_string(text: &str) -> String {
    let mut literal = String::from('"');
    for c in text.chars() {
        match c {
            '"' => literal.push_str("\\\""),
            '\\' => literal.push_str("\\\\"),
            '\n' => literal.push_str("\\n"),
            c if c.is_ascii_control() => literal.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}
