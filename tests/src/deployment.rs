//! A deployment of several instances of an example server behind HAProxy, on loopback, as
//! `examples/deploy/run.sh` runs it (a redis-server, the instances sharing it, HAProxy
//! round-robin per request). The script stops what it started when this is dropped; a test may
//! kill one instance first, by its process id, as a crash would.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use crate::interop::{example_binary, repo_root};

/// One instance of the deployment.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Its name in the load balancer (`i0`, `i1`, ...), which answers carry in `X-Instance`.
    pub name: String,
    /// Its process id.
    pub pid: u32,
    /// Its own endpoint, past the load balancer.
    pub url: String,
}

/// A running deployment.
pub struct Deployment {
    script: Child,
    /// The load balancer's endpoint.
    pub url: String,
    /// The instances behind it.
    pub instances: Vec<Instance>,
}

impl Deployment {
    /// Runs `instances` instances of the example `server` (a debug build) behind HAProxy.
    pub fn start(server: &str, instances: usize) -> Deployment {
        Deployment::start_with(server, instances, |_| {})
    }

    /// [`start`](Self::start), with the script's command (whose environment the instances
    /// inherit) set up by `configure` first.
    pub fn start_with(
        server: &str,
        instances: usize,
        configure: impl FnOnce(&mut Command),
    ) -> Deployment {
        // Built (once) by the cargo that runs the tests, into the target the script looks in.
        let binary = example_binary(server);
        let target = binary
            .parent()
            .and_then(|debug| debug.parent())
            .expect("the binary lies in TARGET/debug");
        let mut command = Command::new("bash");
        configure(&mut command);
        let mut script = command
            .arg(repo_root().join("examples/deploy/run.sh"))
            .env("SERVER", server)
            .env("INSTANCES", instances.to_string())
            .env("PROFILE", "dev")
            .env("NO_BUILD", "1")
            .env("CARGO_TARGET_DIR", target)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("examples/deploy/run.sh starts");
        let stderr = script.stderr.take().expect("stderr is piped");
        let mut lines = BufReader::new(stderr).lines();
        let mut found = Vec::new();
        let mut url = None;
        let mut said = Vec::new();
        for line in lines.by_ref().map_while(Result::ok) {
            if let Some(endpoint) = line.strip_prefix("MCP endpoint: ") {
                url = Some(endpoint.to_owned());
                break;
            }
            if let Some(instance) = parse_instance(&line) {
                found.push(instance);
            }
            said.push(line);
        }
        // Keep draining stderr so that the script never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let Some(url) = url else {
            let _ = script.kill();
            panic!("the deployment did not start:\n{}", said.join("\n"));
        };
        assert_eq!(found.len(), instances, "{said:?}");
        Deployment {
            script,
            url,
            instances: found,
        }
    }

    /// The instance named `name` (as `X-Instance` gives it).
    pub fn instance(&self, name: &str) -> &Instance {
        self.instances
            .iter()
            .find(|i| i.name == name)
            .unwrap_or_else(|| panic!("no instance {name}"))
    }

    /// Kills the instance named `name` at once (SIGKILL), as a crash would.
    pub fn kill(&self, name: &str) {
        let pid = self.instance(name).pid;
        let killed = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(killed.success(), "killed instance {name} (pid {pid})");
    }
}

/// `instance N: pid PID URL`.
fn parse_instance(line: &str) -> Option<Instance> {
    let rest = line.strip_prefix("instance ")?;
    let (number, rest) = rest.split_once(": pid ")?;
    let (pid, url) = rest.split_once(' ')?;
    Some(Instance {
        name: format!("i{number}"),
        pid: pid.parse().ok()?,
        url: url.to_owned(),
    })
}

impl Drop for Deployment {
    fn drop(&mut self) {
        // SIGTERM: the script stops its redis-server, instances and HAProxy, then ends.
        let _ = Command::new("kill")
            .arg(self.script.id().to_string())
            .status();
        let _ = self.script.wait();
    }
}
