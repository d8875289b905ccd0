//! The MCP Bundle (`.mcpb`): a zip holding `manifest.json` at its root and the server's binary
//! under `server/`, which a host (Claude Desktop) unpacks and starts as
//! `${__dirname}/server/BINARY`. One bundle per platform: the manifest names it in
//! `compatibility.platforms`, and the file name carries it (`NAME-VERSION-OS-ARCH.mcpb`).
//!
//! The zip is reproducible: entries in a fixed order, with the zip format's earliest timestamp,
//! so that the same binary gives the same bytes and the same SHA-256 in server.json.

use std::io::Write;

use serde_json::{Map, Value, json};
use zip::write::SimpleFileOptions;

use super::{Crate, Platform};

/// The manifest's schema, version 0.3 (from npm `@anthropic-ai/mcpb` 2.1.2).
pub const SCHEMA: &str = include_str!("../../schemas/mcpb-manifest-v0.3.schema.json");

/// The bundle's file name: `NAME-VERSION-OS-ARCH.mcpb`.
pub fn file_name(krate: &Crate, platform: &Platform) -> String {
    format!(
        "{}-{}-{}-{}.mcpb",
        krate.name, krate.version, platform.os, platform.arch
    )
}

/// `manifest.json` for the crate's binary on `platform`, listing `tools` (name and
/// description) when they are known. A bundle needs a description and an author, which
/// `Cargo.toml` may lack.
pub fn manifest(
    krate: &Crate,
    platform: &Platform,
    tools: Option<&[(String, Option<String>)]>,
) -> anyhow::Result<Value> {
    let Some(description) = krate
        .description
        .as_deref()
        .filter(|d| !d.trim().is_empty())
    else {
        anyhow::bail!(
            "{} has no description, which a bundle shows its users: add description = \"...\" \
             to [package] in Cargo.toml",
            krate.name
        );
    };
    let Some(author) = krate.authors.first() else {
        anyhow::bail!(
            "{} names no author, whom a bundle must name: add authors = [\"Your Name \
             <you@example.com>\"] to [package] in Cargo.toml",
            krate.name
        );
    };
    if author == crate::scaffold::UNKNOWN_AUTHOR {
        anyhow::bail!(
            "{}'s authors in Cargo.toml still say {author:?}, which `mcp new` wrote for want of \
             a name: put yours there (\"Your Name <you@example.com>\")",
            krate.name
        );
    }
    let executable = format!("server/{}", platform.executable(&krate.bin));
    let mut mcp_config = json!({ "command": format!("${{__dirname}}/{executable}") });
    if !krate.mcp.args.is_empty() {
        mcp_config["args"] = json!(krate.mcp.args);
    }
    let mut manifest = Map::new();
    manifest.insert("manifest_version".into(), json!("0.3"));
    manifest.insert("name".into(), json!(krate.name));
    if let Some(title) = &krate.mcp.title {
        manifest.insert("display_name".into(), json!(title));
    }
    manifest.insert("version".into(), json!(krate.version));
    manifest.insert("description".into(), json!(description));
    manifest.insert("author".into(), self::author(author));
    if let Some(url) = &krate.repository {
        manifest.insert("repository".into(), json!({ "type": "git", "url": url }));
    }
    for (key, value) in [
        ("homepage", &krate.homepage),
        ("documentation", &krate.documentation),
        ("license", &krate.license),
    ] {
        if let Some(value) = value {
            manifest.insert(key.into(), json!(value));
        }
    }
    if !krate.keywords.is_empty() {
        manifest.insert("keywords".into(), json!(krate.keywords));
    }
    manifest.insert(
        "server".into(),
        json!({ "type": "binary", "entry_point": executable, "mcp_config": mcp_config }),
    );
    if let Some(tools) = tools {
        let tools: Vec<Value> = tools
            .iter()
            .map(|(name, description)| match description {
                Some(description) => json!({ "name": name, "description": description }),
                None => json!({ "name": name }),
            })
            .collect();
        manifest.insert("tools".into(), Value::Array(tools));
    }
    manifest.insert(
        "compatibility".into(),
        json!({ "platforms": [platform.os] }),
    );
    Ok(Value::Object(manifest))
}

/// The bundle's `author` from one of Cargo's `authors` (`Name <email>` or `Name`).
fn author(author: &str) -> Value {
    match author.split_once('<') {
        Some((name, rest)) if rest.ends_with('>') => {
            json!({ "name": name.trim(), "email": rest.trim_end_matches('>').trim() })
        }
        _ => json!({ "name": author.trim() }),
    }
}

/// The bundle's bytes: `manifest.json`, then the executable at `server/EXECUTABLE`, mode 755.
pub fn zip(manifest: &Value, executable: &str, binary: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    let mut text = serde_json::to_vec_pretty(manifest).expect("JSON values serialize");
    text.push(b'\n');
    writer.start_file("manifest.json", options.unix_permissions(0o644))?;
    writer.write_all(&text)?;
    writer.start_file(
        format!("server/{executable}"),
        options.unix_permissions(0o755),
    )?;
    writer.write_all(binary)?;
    Ok(writer.finish()?.into_inner())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pack::McpMetadata;

    pub(crate) fn krate() -> Crate {
        Crate {
            name: "my-server".into(),
            version: "0.2.0".into(),
            description: Some("Notes, searched.".into()),
            authors: vec!["Ada Lovelace <ada@example.com>".into()],
            license: Some("MIT".into()),
            repository: Some("https://github.com/ada/my-server".into()),
            homepage: None,
            documentation: None,
            keywords: vec!["notes".into()],
            bin: "my-server".into(),
            mcp: McpMetadata::default(),
        }
    }

    fn linux() -> Platform {
        Platform {
            os: "linux",
            arch: "x86_64".into(),
        }
    }

    #[test]
    fn the_manifest_is_made_of_cargo_toml() {
        let tools = [("add".to_string(), Some("Add two integers.".to_string()))];
        let manifest = manifest(&krate(), &linux(), Some(&tools)).unwrap();
        assert_eq!(
            manifest,
            json!({
                "manifest_version": "0.3",
                "name": "my-server",
                "version": "0.2.0",
                "description": "Notes, searched.",
                "author": { "name": "Ada Lovelace", "email": "ada@example.com" },
                "repository": { "type": "git", "url": "https://github.com/ada/my-server" },
                "license": "MIT",
                "keywords": ["notes"],
                "server": {
                    "type": "binary",
                    "entry_point": "server/my-server",
                    "mcp_config": { "command": "${__dirname}/server/my-server" }
                },
                "tools": [{ "name": "add", "description": "Add two integers." }],
                "compatibility": { "platforms": ["linux"] }
            })
        );
        super::super::check(&manifest, SCHEMA, "manifest.json").unwrap();
        assert_eq!(
            file_name(&krate(), &linux()),
            "my-server-0.2.0-linux-x86_64.mcpb"
        );
    }

    #[test]
    fn a_crate_without_description_or_author_is_refused_in_cargo_terms() {
        let mut krate = krate();
        krate.description = None;
        krate.authors.clear();
        let windows = Platform {
            os: "win32",
            arch: "x86_64".into(),
        };
        assert_eq!(
            manifest(&krate, &windows, None).unwrap_err().to_string(),
            "my-server has no description, which a bundle shows its users: add description = \
             \"...\" to [package] in Cargo.toml"
        );
        krate.description = Some("Notes.".into());
        assert_eq!(
            manifest(&krate, &windows, None).unwrap_err().to_string(),
            "my-server names no author, whom a bundle must name: add authors = [\"Your Name \
             <you@example.com>\"] to [package] in Cargo.toml"
        );
        krate.authors = vec!["Ada".into()];
        let manifest = manifest(&krate, &windows, None).unwrap();
        assert_eq!(manifest["server"]["entry_point"], "server/my-server.exe");
        assert_eq!(manifest["author"], json!({ "name": "Ada" }));
        let mut broken = manifest.clone();
        broken["server"]["type"] = json!("rust");
        let error = super::super::check(&broken, SCHEMA, "manifest.json").unwrap_err();
        let error = error.to_string();
        assert!(
            error.starts_with("manifest.json would break its published schema: "),
            "{error}"
        );
        assert!(error.contains("server.type"), "{error}");
    }

    #[test]
    fn the_zip_holds_the_manifest_and_an_executable_and_is_reproducible() {
        let manifest = manifest(&krate(), &linux(), None).unwrap();
        let bytes = zip(&manifest, "my-server", b"\x7fELF binary").unwrap();
        assert_eq!(
            bytes,
            zip(&manifest, "my-server", b"\x7fELF binary").unwrap()
        );
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
        let names: Vec<&str> = archive.file_names().collect();
        assert_eq!(names, ["manifest.json", "server/my-server"]);
        let binary = archive.by_name("server/my-server").unwrap();
        assert_eq!(binary.unix_mode(), Some(0o100755));
        drop(binary);
        let text = std::io::read_to_string(archive.by_name("manifest.json").unwrap()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), manifest);
    }
}
