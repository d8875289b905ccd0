//! Support for the tests of the serverless examples (`examples/serverless`): each example run in
//! its platform's local runtime on a free loopback port, with the variables it is given as the
//! runtime's environment, and stopped on drop. `scripts/build-serverless.sh` builds the examples
//! and installs the runtimes:
//! - the Cloudflare Worker, as `worker-build` built it, in `workerd` (npm's), Cloudflare's runtime,
//!   with the example's `workerd.capnp`;
//! - the AWS Lambda function in `cargo lambda watch` (cargo-lambda from PyPI), its local emulator
//!   of Lambda, which finds the function built.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::interop::repo_root;
use crate::wait_for_listener;

/// `relative` (to `examples/serverless`), a file `scripts/build-serverless.sh` makes or installs;
/// panics with what to run when it is missing.
fn built(relative: &str) -> PathBuf {
    let path = examples().join(relative);
    assert!(
        path.is_file(),
        "{} is missing: run scripts/build-serverless.sh (scripts/test.sh does) before the tests \
         of the serverless examples",
        path.display()
    );
    path
}

/// The examples' folder.
fn examples() -> PathBuf {
    repo_root().join("examples/serverless")
}

/// A serverless platform whose example the tests run.
#[derive(Clone, Copy, Debug)]
pub enum Platform {
    /// Cloudflare Workers: the worker in `workerd`.
    Workers,
    /// AWS Lambda: the function in `cargo lambda watch`.
    Lambda,
}

impl Platform {
    /// The example's MCP endpoint when its runtime listens on `port`: `/mcp` for the worker, the
    /// function's URL as the emulator serves it for Lambda.
    pub fn url(self, port: u16) -> String {
        match self {
            Platform::Workers => format!("http://127.0.0.1:{port}/mcp"),
            Platform::Lambda => format!("http://127.0.0.1:{port}/lambda-url/mcp-aws-lambda/mcp"),
        }
    }

    /// The name the example's server gives (its crate's).
    pub fn server_name(self) -> &'static str {
        match self {
            Platform::Workers => "mcp-cloudflare-worker",
            Platform::Lambda => "mcp-aws-lambda",
        }
    }

    /// Starts the example in its runtime on `port`, with `variables` (name, value) as its
    /// variables, and waits until the runtime listens.
    pub fn start(self, port: u16, variables: &[(&str, &str)]) -> Running {
        let mut command = match self {
            Platform::Workers => {
                built("cloudflare-worker/build/index_bg.wasm");
                // npm's `workerd` runs the binary through Node; its platform package holds the
                // binary itself, which is what the test stops.
                let mut command = Command::new(built(
                    "cloudflare-worker/node_modules/@cloudflare/workerd-linux-64/bin/workerd",
                ));
                command
                    .args(["serve", "workerd.capnp"])
                    .arg(format!("--socket-addr=http=127.0.0.1:{port}"))
                    .current_dir(examples().join("cloudflare-worker"))
                    .stderr(Stdio::inherit());
                command
            }
            Platform::Lambda => {
                built("aws-lambda/target/debug/mcp-aws-lambda");
                let mut command = Command::new(repo_root().join(".tools/lambda/bin/cargo-lambda"));
                command
                    .args([
                        "lambda",
                        "watch",
                        "--ignore-changes",
                        "--disable-cors",
                        "--quiet",
                    ])
                    .args(["--invoke-address", "127.0.0.1"])
                    .args(["--invoke-port", &port.to_string()])
                    .current_dir(examples().join("aws-lambda"))
                    // The emulator's log and the function's, which ends with an error when the
                    // emulator it polls is stopped: to see them, run `cargo lambda watch` in the
                    // example by hand.
                    .stderr(Stdio::null());
                command
            }
        };
        let child = command
            .envs(variables.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("the runtime of {self:?} does not start: {error}"));
        // Held before waiting, so that a runtime that never listens is still stopped.
        let running = Running {
            child,
            url: self.url(port),
        };
        wait_for_listener(
            port,
            Duration::from_secs(60),
            &format!("the runtime of {self:?}"),
        );
        running
    }
}

/// An example running in its platform's local runtime, stopped on drop.
pub struct Running {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
}

impl Drop for Running {
    /// Kills the runtime (cargo-lambda ends the function it runs).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
