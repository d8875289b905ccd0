//! `mcp pack`: a server crate made into what users install and registries list.
//!
//! ```sh
//! mcp pack                                  # in the crate's folder
//! mcp pack --image ghcr.io/me/my-server:0.1.0
//! ```
//!
//! It builds the crate's binary (`cargo build --release`), asks the built server for its tools
//! (over stdio, as a client would), and writes, in `target/mcp-pack/`:
//! - an MCP Bundle, `NAME-VERSION-OS-ARCH.mcpb`: a zip of `manifest.json` (version 0.3 of the
//!   bundle format) and the binary under `server/`, what Claude Desktop installs (see
//!   [`bundle`]);
//! - `server.json`, the server's entry for the MCP registry, naming the bundle at the URL it
//!   will be downloaded from, with its SHA-256, and a container image when one is given (see
//!   [`registry`]).
//!
//! Both are checked against the published schemas (copies in `schemas/`) before they are
//! written. What they say comes from `Cargo.toml`: the package's name, version, description,
//! authors, license, repository and keywords, and the table `[package.metadata.mcp]`
//! ([`McpMetadata`]).

mod bundle;
mod registry;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use mcp_runtime::protocol::schema::CompiledSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::target::{Connection, Target};

/// `mcp pack`'s options.
#[derive(Debug, clap::Args)]
pub struct PackArgs {
    /// The crate's manifest (`./Cargo.toml` unless given).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// The binary to pack, when the crate has several.
    #[arg(long, value_name = "NAME")]
    bin: Option<String>,
    /// Build for this target triple (`cargo build --target`); the tools are then not listed,
    /// since the binary cannot run here.
    #[arg(long, value_name = "TRIPLE")]
    target: Option<String>,
    /// Where to write the bundle and server.json (`target/mcp-pack` unless given).
    #[arg(long, value_name = "FOLDER")]
    out: Option<PathBuf>,
    /// Where the bundle will be downloaded from, without the file name (by default the GitHub
    /// release `v<version>` of the repository).
    #[arg(long, value_name = "URL")]
    release_url: Option<String>,
    /// A container image of the server (`ghcr.io/OWNER/NAME:TAG`), listed in server.json
    /// beside the bundle.
    #[arg(long, value_name = "IMAGE")]
    image: Option<String>,
}

/// What `[package.metadata.mcp]` in `Cargo.toml` may say.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct McpMetadata {
    /// The server's name in the MCP registry (`io.github.OWNER/NAME`): a namespace its
    /// publisher can prove. By default, from a GitHub `repository`.
    pub registry_name: Option<String>,
    /// A name for people (the bundle's `display_name`, server.json's `title`).
    pub title: Option<String>,
    /// server.json's description (at most 100 characters), when the package's is longer.
    pub description: Option<String>,
    /// The arguments the binary is started with (none by default).
    #[serde(default)]
    pub args: Vec<String>,
    /// Where the bundle will be downloaded from (see `--release-url`).
    pub release_url: Option<String>,
    /// A container image of the server (see `--image`).
    pub image: Option<String>,
}

/// What `mcp pack` knows of the crate: `cargo metadata`'s view of the package.
#[derive(Clone, Debug)]
pub struct Crate {
    /// The package's name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// `description`.
    pub description: Option<String>,
    /// `authors`, as written (`Name <email>`).
    pub authors: Vec<String>,
    /// `license`, an SPDX expression.
    pub license: Option<String>,
    /// `repository`.
    pub repository: Option<String>,
    /// `homepage`.
    pub homepage: Option<String>,
    /// `documentation`.
    pub documentation: Option<String>,
    /// `keywords`.
    pub keywords: Vec<String>,
    /// The binary packed.
    pub bin: String,
    /// `[package.metadata.mcp]`.
    pub mcp: McpMetadata,
}

/// The platform a bundle is for: the operating system by the name bundles use (`linux`,
/// `darwin`, `win32`) and the CPU architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Platform {
    /// `linux`, `darwin` or `win32`.
    pub os: &'static str,
    /// `x86_64`, `aarch64`, ...
    pub arch: String,
}

impl Platform {
    /// The machine `mcp` runs on.
    fn host() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            _ => "linux",
        };
        Platform {
            os,
            arch: std::env::consts::ARCH.to_string(),
        }
    }

    /// The platform of a Rust target triple (`x86_64-unknown-linux-gnu`, `aarch64-apple-darwin`).
    fn of_triple(triple: &str) -> anyhow::Result<Platform> {
        let os = if triple.contains("-linux") {
            "linux"
        } else if triple.contains("-apple-darwin") {
            "darwin"
        } else if triple.contains("-windows") {
            "win32"
        } else {
            bail!(
                "{triple} runs on none of the systems MCP Bundles support (Linux, macOS, Windows)"
            );
        };
        let arch = triple.split('-').next().unwrap_or(triple).to_string();
        Ok(Platform { os, arch })
    }

    /// The file name of an executable on this platform.
    fn executable(&self, name: &str) -> String {
        if self.os == "win32" {
            format!("{name}.exe")
        } else {
            name.to_string()
        }
    }
}

/// Runs `mcp pack`.
pub async fn run(args: PackArgs, connection: &Connection, json: bool) -> anyhow::Result<()> {
    let manifest_path = args
        .manifest_path
        .clone()
        .unwrap_or_else(|| PathBuf::from("Cargo.toml"));
    let (krate, target_directory) = read_crate(&manifest_path, args.bin.as_deref())?;
    let platform = match &args.target {
        Some(triple) => Platform::of_triple(triple)?,
        None => Platform::host(),
    };
    let file_name = bundle::file_name(&krate, &platform);
    let release_url = args.release_url.clone().or(krate.mcp.release_url.clone());
    let image = args.image.clone().or(krate.mcp.image.clone());
    let packages = |sha256| registry::Packages {
        release_url: release_url.as_deref(),
        bundle_file: &file_name,
        bundle_sha256: sha256,
        image: image.as_deref(),
    };
    // What Cargo.toml lacks is said before the build, which takes a while.
    bundle::manifest(&krate, &platform, None)?;
    registry::server_json(&krate, &packages(""))?;

    build(
        &manifest_path,
        &krate,
        args.target.as_deref(),
        &target_directory,
    )?;
    let binary = binary_path(&target_directory, args.target.as_deref(), &platform, &krate);
    let tools = match &args.target {
        Some(_) => None,
        None => Some(list_tools(&binary, &krate.mcp.args, connection).await?),
    };
    let manifest = bundle::manifest(&krate, &platform, tools.as_deref())?;
    check(&manifest, bundle::SCHEMA, "the bundle's manifest.json")?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| target_directory.join("mcp-pack"));
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let bundle_path = out.join(&file_name);
    let executable = std::fs::read(&binary)
        .with_context(|| format!("cannot read the built binary {}", binary.display()))?;
    let bytes = bundle::zip(&manifest, &platform.executable(&krate.bin), &executable)?;
    std::fs::write(&bundle_path, &bytes)
        .with_context(|| format!("cannot write {}", bundle_path.display()))?;
    let sha256 = registry::sha256(&bytes);
    let server = registry::server_json(&krate, &packages(&sha256))?;
    check(&server, registry::SCHEMA, "server.json")?;
    let server_path = out.join("server.json");
    let mut text = serde_json::to_string_pretty(&server).expect("JSON values serialize");
    text.push('\n');
    std::fs::write(&server_path, text)
        .with_context(|| format!("cannot write {}", server_path.display()))?;
    report(
        &bundle_path,
        &sha256,
        &server_path,
        &server,
        tools.as_deref(),
        json,
    )
}

/// The package at `manifest_path` and the workspace's target folder, from `cargo metadata`.
fn read_crate(manifest_path: &Path, bin: Option<&str>) -> anyhow::Result<(Crate, PathBuf)> {
    let output = cargo()
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
        ])
        .arg(manifest_path)
        .output()
        .context("cannot run cargo")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed on {}: {}",
            manifest_path.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let metadata: Value =
        serde_json::from_slice(&output.stdout).context("cargo metadata printed no JSON")?;
    let wanted = manifest_path
        .canonicalize()
        .with_context(|| format!("cannot find {}", manifest_path.display()))?;
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| {
            package["manifest_path"]
                .as_str()
                .and_then(|path| Path::new(path).canonicalize().ok())
                .is_some_and(|path| path == wanted)
        })
        .with_context(|| {
            format!(
                "{} is a workspace, not a package: give the server's own Cargo.toml with \
                 --manifest-path",
                manifest_path.display()
            )
        })?;
    let krate = parse_package(package, bin)?;
    let target_directory = PathBuf::from(
        metadata["target_directory"]
            .as_str()
            .context("cargo metadata names no target folder")?,
    );
    Ok((krate, target_directory))
}

/// The crate `package` (an entry of `cargo metadata`'s `packages`) describes, packing `bin`.
fn parse_package(package: &Value, bin: Option<&str>) -> anyhow::Result<Crate> {
    let text = |key: &str| package[key].as_str().map(str::to_string);
    let list = |key: &str| -> Vec<String> {
        package[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item.as_str().map(str::to_string))
            .collect()
    };
    let name = text("name").context("cargo metadata names no package")?;
    let bins: Vec<String> = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|target| {
            target["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "bin"))
        })
        .filter_map(|target| target["name"].as_str().map(str::to_string))
        .collect();
    let bin = match (bin, bins.as_slice()) {
        (Some(bin), _) if bins.iter().any(|name| name == bin) => bin.to_string(),
        (Some(bin), _) => bail!("{name} has no binary {bin:?}; it has {bins:?}"),
        (None, [only]) => only.clone(),
        (None, []) => bail!("{name} has no binary to pack: a server crate has a src/main.rs"),
        (None, _) => bail!(
            "{name} has several binaries ({}): choose one with --bin",
            bins.join(", ")
        ),
    };
    let mcp = match package["metadata"].get("mcp") {
        None | Some(Value::Null) => McpMetadata::default(),
        Some(table) => McpMetadata::deserialize(table).with_context(|| {
            format!("[package.metadata.mcp] of {name} is not as `mcp pack` reads it")
        })?,
    };
    Ok(Crate {
        version: text("version").context("cargo metadata names no version")?,
        description: text("description"),
        authors: list("authors"),
        license: text("license"),
        repository: text("repository"),
        homepage: text("homepage"),
        documentation: text("documentation"),
        keywords: list("keywords"),
        name,
        bin,
        mcp,
    })
}

/// `cargo`, as the one that runs `mcp` names it when it does.
fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds the binary in release mode; its output goes to stderr.
fn build(
    manifest_path: &Path,
    krate: &Crate,
    target: Option<&str>,
    target_directory: &Path,
) -> anyhow::Result<()> {
    let mut command = cargo();
    command
        .args(["build", "--release", "--bin", &krate.bin, "--manifest-path"])
        .arg(manifest_path)
        .env("CARGO_TARGET_DIR", target_directory)
        .stdout(std::io::stderr());
    if let Some(target) = target {
        command.args(["--target", target]);
    }
    let status = command.status().context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo build failed: the bundle needs the server to build in release mode");
    }
    Ok(())
}

/// Where `cargo build --release` put the binary.
fn binary_path(
    target_directory: &Path,
    target: Option<&str>,
    platform: &Platform,
    krate: &Crate,
) -> PathBuf {
    let mut path = target_directory.to_path_buf();
    if let Some(target) = target {
        path.push(target);
    }
    path.join("release").join(platform.executable(&krate.bin))
}

/// The tools the built server lists, asked over stdio as a host would.
async fn list_tools(
    binary: &Path,
    args: &[String],
    connection: &Connection,
) -> anyhow::Result<Vec<(String, Option<String>)>> {
    let target = Target::Stdio {
        program: binary.display().to_string(),
        args: args.to_vec(),
    };
    let client = connection.connect(&target).await.with_context(|| {
        format!(
            "the built server did not start as an MCP server on stdio (as {} with arguments \
             {args:?}; set them in [package.metadata.mcp] args)",
            binary.display()
        )
    })?;
    let tools = client.list_all_tools().await.context("tools/list failed");
    let closed = client.close().await;
    let tools = tools?;
    closed?;
    Ok(tools
        .into_iter()
        .map(|tool| (tool.name, tool.description))
        .collect())
}

/// Checks `document` against `schema` (a published schema, as text).
fn check(document: &Value, schema: &str, what: &str) -> anyhow::Result<()> {
    let schema: serde_json::Map<String, Value> =
        serde_json::from_str(schema).expect("the schemas in schemas/ are JSON objects");
    let compiled = CompiledSchema::compile(&schema).expect("the schemas in schemas/ compile");
    compiled.validate(document).map_err(|violation| {
        anyhow::anyhow!(
            "{what} would break its published schema: {violation} (check the values in \
             Cargo.toml it was made from)"
        )
    })
}

/// Says what was written: a summary, or JSON.
fn report(
    bundle: &Path,
    sha256: &str,
    server_path: &Path,
    server: &Value,
    tools: Option<&[(String, Option<String>)]>,
    json: bool,
) -> anyhow::Result<()> {
    let identifiers: Vec<&str> = server["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|package| package["identifier"].as_str())
        .collect();
    if json {
        return crate::output::json(&serde_json::json!({
            "bundle": bundle,
            "sha256": sha256,
            "serverJson": server_path,
            "name": server["name"],
            "tools": tools.map(|tools| tools.iter().map(|(name, _)| name).collect::<Vec<_>>()),
            "packages": identifiers,
        }));
    }
    println!("bundle: {}", bundle.display());
    println!("sha256: {sha256}");
    if let Some(tools) = tools {
        let names: Vec<&str> = tools.iter().map(|(name, _)| name.as_str()).collect();
        println!("tools: {}", names.join(", "));
    }
    println!(
        "server.json: {} ({})",
        server_path.display(),
        server["name"].as_str().unwrap_or("")
    );
    for identifier in identifiers {
        println!("  lists {identifier}");
    }
    if let Some(image) = server["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["registryType"] == "oci")
    {
        println!(
            "the registry accepts the image {} once it carries the label \
             io.modelcontextprotocol.server.name={} (a LABEL line in the Dockerfile)",
            image["identifier"].as_str().unwrap_or(""),
            server["name"]
        );
    }
    println!(
        "next: upload the bundle to the URL above, then publish server.json with the registry's \
         mcp-publisher"
    );
    Ok(())
}
