//! A real `redis-server` for the tests of the Redis-backed stores: started on a free loopback port
//! in a temporary folder of its own, with nothing saved to disk, and killed (by its process id)
//! when dropped. `scripts/install-redis.sh` installs the binary (`scripts/test.sh` runs it).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::free_port;

/// A `redis-server` this test started.
pub struct RedisServer {
    child: Child,
    port: u16,
    password: Option<String>,
    dir: PathBuf,
    /// The TLS port, when the server speaks TLS too.
    tls_port: Option<u16>,
}

/// The `redis-server` binary, or a panic saying how to install it.
fn binary() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("redis-server"))
            .find(|path| path.is_file())
    });
    found.expect(
        "redis-server is not installed: run scripts/install-redis.sh (scripts/test.sh does) before the Redis tests",
    )
}

impl RedisServer {
    /// Starts a server on a free port.
    pub fn start() -> RedisServer {
        Self::start_on(free_port(), None)
    }

    /// Starts a server that requires `password`.
    pub fn with_password(password: &str) -> RedisServer {
        Self::start_on(free_port(), Some(password.to_owned()))
    }

    /// Starts a server that also speaks TLS, with a certificate for `127.0.0.1` that a
    /// certificate authority of its own signed ([`ca_certificate`](Self::ca_certificate)).
    pub fn with_tls() -> RedisServer {
        let mut server = Self::start_on(free_port(), None);
        server.kill();
        make_certificates(&server.dir);
        let tls_port = free_port();
        server.tls_port = Some(tls_port);
        server.restart();
        server
    }

    fn start_on(port: u16, password: Option<String>) -> RedisServer {
        let dir = std::env::temp_dir().join(format!("mcp-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let child = spawn(port, password.as_deref(), &dir, None);
        RedisServer {
            child,
            port,
            password,
            dir,
            tls_port: None,
        }
    }

    /// The `rediss://` URL of a server started [`with_tls`](Self::with_tls).
    pub fn tls_url(&self) -> String {
        let port = self.tls_port.expect("a server started with TLS");
        format!("rediss://127.0.0.1:{port}/")
    }

    /// The PEM certificate of the authority that signed the TLS server's certificate.
    pub fn ca_certificate(&self) -> Vec<u8> {
        std::fs::read(self.dir.join("ca.crt")).expect("the test CA")
    }

    /// The URL of the server, with its password when it has one.
    pub fn url(&self) -> String {
        match &self.password {
            Some(password) => format!("redis://:{password}@127.0.0.1:{}/", self.port),
            None => format!("redis://127.0.0.1:{}/", self.port),
        }
    }

    /// Runs the command `args` (`["HSET", key, field, value]`) and returns the first line of the
    /// answer (`:1`, `+OK`): for a test that writes what another program would have written.
    pub fn command(&self, args: &[&str]) -> String {
        let encode = |args: &[&str]| {
            let mut request = format!("*{}\r\n", args.len());
            for arg in args {
                request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
            }
            request
        };
        let mut request = String::new();
        if let Some(password) = &self.password {
            request.push_str(&encode(&["AUTH", password]));
        }
        request.push_str(&encode(args));
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).expect("redis-server answers");
        stream.write_all(request.as_bytes()).unwrap();
        let lines = if self.password.is_some() { 2 } else { 1 };
        let mut answer = Vec::new();
        let mut byte = [0u8; 1];
        while answer.iter().filter(|b| **b == b'\n').count() < lines {
            stream.read_exact(&mut byte).expect("redis-server answers");
            answer.push(byte[0]);
        }
        let answer = String::from_utf8(answer).expect("a text answer");
        answer.lines().last().unwrap_or_default().to_owned()
    }

    /// How many times the server ran `command` (lower case, `hmget`), from `INFO commandstats`.
    pub fn calls(&self, command: &str) -> u64 {
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).expect("redis-server answers");
        let mut request = String::new();
        if let Some(password) = &self.password {
            request.push_str(&format!("AUTH {password}\r\n"));
        }
        request.push_str("INFO commandstats\r\nQUIT\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("redis-server answers");
        let line = format!("cmdstat_{command}:calls=");
        answer
            .lines()
            .find_map(|l| l.strip_prefix(&line))
            .map_or(0, |rest| {
                rest.split(',').next().unwrap_or_default().parse().unwrap()
            })
    }

    /// Kills the server, as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts the server again on the same port, empty, after [`kill`](Self::kill).
    pub fn restart(&mut self) {
        let tls = self.tls_port.map(|port| (port, self.dir.as_path()));
        self.child = spawn(self.port, self.password.as_deref(), &self.dir, tls);
    }
}

/// Makes, in `dir`, a certificate authority (`ca.crt`) and a certificate for `127.0.0.1` it
/// signed (`redis.crt`, `redis.key`), with the `openssl` command.
fn make_certificates(dir: &Path) {
    let run = |args: &[&str]| {
        let status = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(status.success(), "openssl {args:?}");
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509", "-days", "1", "-subj", "/CN=MCP test CA"];
    ca.extend(ec);
    ca.extend(["-keyout", "ca.key", "-out", "ca.crt"]);
    run(&ca);
    let mut request = vec!["req", "-subj", "/CN=127.0.0.1", "-keyout", "redis.key"];
    request.extend(ec);
    request.extend(["-out", "redis.csr"]);
    run(&request);
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "redis.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "san.ext",
        "-out",
        "redis.crt",
    ]);
}

/// Starts `redis-server` on `port` in `dir` (and on a TLS port with the certificates of
/// [`make_certificates`] in the folder given with it), and waits until it answers.
fn spawn(port: u16, password: Option<&str>, dir: &Path, tls: Option<(u16, &Path)>) -> Child {
    let mut command = Command::new(binary());
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .arg("--dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(password) = password {
        command.args(["--requirepass", password]);
    }
    if let Some((tls_port, certificates)) = tls {
        command
            .args([
                "--tls-port",
                &tls_port.to_string(),
                "--tls-auth-clients",
                "no",
            ])
            .arg("--tls-cert-file")
            .arg(certificates.join("redis.crt"))
            .arg("--tls-key-file")
            .arg(certificates.join("redis.key"))
            .arg("--tls-ca-cert-file")
            .arg(certificates.join("ca.crt"));
    }
    let mut child = command.spawn().expect("redis-server starts");
    if let Err(error) = wait_until_ready(port, password) {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{error}");
    }
    child
}

/// Waits (10 s at most) until the server on `port` answers `PING`.
fn wait_until_ready(port: u16, password: Option<&str>) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let mut ping = String::new();
    if let Some(password) = password {
        ping.push_str(&format!("AUTH {password}\r\n"));
    }
    ping.push_str("PING\r\n");
    while Instant::now() < deadline {
        if let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_secs(1)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
            let mut answer = Vec::new();
            let mut chunk = [0u8; 64];
            if stream.write_all(ping.as_bytes()).is_ok() {
                while let Ok(n @ 1..) = stream.read(&mut chunk) {
                    answer.extend_from_slice(&chunk[..n]);
                    if String::from_utf8_lossy(&answer).contains("PONG") {
                        return Ok(());
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!(
        "redis-server did not answer on port {port} within 10 s"
    ))
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
