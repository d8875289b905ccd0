//! `server.json`: the server's entry in the MCP registry (schema 2025-12-11), listing the
//! bundle at the URL it will be downloaded from, with its SHA-256, and a container image when
//! there is one.
//!
//! Beside the schema, the registry checks a few rules when an entry is published, which are
//! kept here: the name is `NAMESPACE/NAME` in a namespace the publisher proves
//! (`io.github.OWNER` for a GitHub account), the description has at most 100 characters, and
//! neither a bundle nor an image carries a `version` (the URL and the tag say it).

use serde_json::{Value, json};

use super::Crate;

/// The registry's schema of server.json, version 2025-12-11.
pub const SCHEMA: &str = include_str!("../../schemas/server-2025-12-11.schema.json");

/// The URL of that schema, which server.json names.
const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The longest description the registry takes.
const DESCRIPTION_LIMIT: usize = 100;

/// The packages server.json lists.
pub struct Packages<'a> {
    /// Where the bundle will be downloaded from, without the file name; by default the GitHub
    /// release `v<version>` of the repository (or of the registry name's GitHub account).
    pub release_url: Option<&'a str>,
    /// The bundle's file name.
    pub bundle_file: &'a str,
    /// The bundle's SHA-256, in hex.
    pub bundle_sha256: &'a str,
    /// A container image, `REGISTRY/OWNER/NAME:TAG`.
    pub image: Option<&'a str>,
}

/// The SHA-256 of `bytes`, in lowercase hex (the digest skills list, without its `sha256:`).
pub fn sha256(bytes: &[u8]) -> String {
    let digest = mcp_runtime::protocol::skills::skill_digest(bytes);
    digest["sha256:".len()..].to_string()
}

/// The GitHub account and repository of a `https://github.com/OWNER/REPO` URL.
fn github(url: &str) -> Option<(&str, &str)> {
    let path = url.strip_prefix("https://github.com/")?;
    let mut parts = path.trim_end_matches('/').split('/');
    let owner = parts.next().filter(|owner| !owner.is_empty())?;
    let repo = parts.next()?.trim_end_matches(".git");
    (!repo.is_empty()).then_some((owner, repo))
}

/// The server's registry name: `[package.metadata.mcp] registry-name`, else
/// `io.github.OWNER/NAME` from a GitHub repository.
fn name(krate: &Crate) -> anyhow::Result<String> {
    if let Some(name) = &krate.mcp.registry_name {
        let valid = name.split_once('/').is_some_and(|(namespace, server)| {
            !namespace.is_empty() && !server.is_empty() && !server.contains('/')
        });
        if !valid {
            anyhow::bail!(
                "registry-name {name:?} in [package.metadata.mcp] is not NAMESPACE/NAME \
                 (io.github.OWNER/{}, say)",
                krate.name
            );
        }
        if name.starts_with(&format!("io.github.{}/", crate::scaffold::UNKNOWN_ACCOUNT)) {
            anyhow::bail!(
                "registry-name {name:?} in [package.metadata.mcp] still says {}, which `mcp new` \
                 wrote for want of a GitHub account: put yours there (io.github.YOU/{})",
                crate::scaffold::UNKNOWN_ACCOUNT,
                krate.name
            );
        }
        return Ok(name.clone());
    }
    match krate.repository.as_deref().and_then(github) {
        Some((owner, _)) => Ok(format!("io.github.{owner}/{}", krate.name)),
        None => anyhow::bail!(
            "{} has no name in the MCP registry: add registry-name = \"io.github.OWNER/{}\" \
             (a namespace you can prove to the registry) to [package.metadata.mcp] in \
             Cargo.toml, or a GitHub repository to [package]",
            krate.name,
            krate.name
        ),
    }
}

/// Where the bundle will be downloaded from, without the file name.
fn release_url(krate: &Crate, given: Option<&str>, name: &str) -> anyhow::Result<String> {
    if let Some(url) = given {
        return Ok(url.trim_end_matches('/').to_string());
    }
    let tag = format!("v{}", krate.version);
    if let Some((owner, repo)) = krate.repository.as_deref().and_then(github) {
        return Ok(format!(
            "https://github.com/{owner}/{repo}/releases/download/{tag}"
        ));
    }
    if let Some((owner, server)) = name
        .strip_prefix("io.github.")
        .and_then(|name| name.split_once('/'))
    {
        return Ok(format!(
            "https://github.com/{owner}/{server}/releases/download/{tag}"
        ));
    }
    anyhow::bail!(
        "cannot tell where the bundle will be downloaded from: give --release-url URL, or \
         release-url in [package.metadata.mcp]"
    )
}

/// server.json for `krate`, listing `packages`.
pub fn server_json(krate: &Crate, packages: &Packages<'_>) -> anyhow::Result<Value> {
    let name = name(krate)?;
    let description = krate
        .mcp
        .description
        .as_deref()
        .or(krate.description.as_deref())
        .unwrap_or_default();
    if description.chars().count() > DESCRIPTION_LIMIT {
        anyhow::bail!(
            "the registry takes descriptions of at most {DESCRIPTION_LIMIT} characters, and \
             {}'s has {}: add a shorter description to [package.metadata.mcp] in Cargo.toml",
            krate.name,
            description.chars().count()
        );
    }
    let url = release_url(krate, packages.release_url, &name)?;
    let mut listed = vec![json!({
        "registryType": "mcpb",
        "identifier": format!("{url}/{}", packages.bundle_file),
        "fileSha256": packages.bundle_sha256,
        "transport": { "type": "stdio" },
    })];
    if let Some(image) = packages.image {
        let tagged = image
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains(':') || last.contains('@'));
        if !tagged {
            anyhow::bail!(
                "the image {image:?} has no tag: the registry lists an image at one version \
                 (ghcr.io/OWNER/{}:{}, say)",
                krate.name,
                krate.version
            );
        }
        listed.push(json!({
            "registryType": "oci",
            "identifier": image,
            "transport": { "type": "stdio" },
        }));
    }
    let mut server = json!({
        "$schema": SCHEMA_URL,
        "name": name,
        "description": description,
        "version": krate.version,
    });
    if let Some(title) = &krate.mcp.title {
        server["title"] = json!(title);
    }
    if let Some(repository) = &krate.repository
        && github(repository).is_some()
    {
        server["repository"] = json!({ "url": repository, "source": "github" });
    }
    if let Some(homepage) = &krate.homepage {
        server["websiteUrl"] = json!(homepage);
    }
    server["packages"] = Value::Array(listed);
    Ok(server)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::bundle::tests::krate;

    fn packages(image: Option<&str>) -> Packages<'_> {
        Packages {
            release_url: None,
            bundle_file: "my-server-0.2.0-linux-x86_64.mcpb",
            bundle_sha256: "20ce8ba2f5fe9481ee063fe3da0b0c5eefad2a93a4b903c7ce239ec6a3bbb811",
            image,
        }
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn server_json_lists_the_bundle_from_the_github_release_and_the_image() {
        let server = server_json(&krate(), &packages(Some("ghcr.io/ada/my-server:0.2.0"))).unwrap();
        assert_eq!(
            server,
            json!({
                "$schema": SCHEMA_URL,
                "name": "io.github.ada/my-server",
                "description": "Notes, searched.",
                "version": "0.2.0",
                "repository": { "url": "https://github.com/ada/my-server", "source": "github" },
                "packages": [
                    {
                        "registryType": "mcpb",
                        "identifier": "https://github.com/ada/my-server/releases/download/v0.2.0/my-server-0.2.0-linux-x86_64.mcpb",
                        "fileSha256": "20ce8ba2f5fe9481ee063fe3da0b0c5eefad2a93a4b903c7ce239ec6a3bbb811",
                        "transport": { "type": "stdio" }
                    },
                    {
                        "registryType": "oci",
                        "identifier": "ghcr.io/ada/my-server:0.2.0",
                        "transport": { "type": "stdio" }
                    }
                ]
            })
        );
        super::super::check(&server, SCHEMA, "server.json").unwrap();
        assert_eq!(
            sha256(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_name_and_the_url_come_from_the_metadata_without_a_repository() {
        let mut krate = krate();
        krate.repository = None;
        assert_eq!(
            server_json(&krate, &packages(None))
                .unwrap_err()
                .to_string(),
            "my-server has no name in the MCP registry: add registry-name = \
             \"io.github.OWNER/my-server\" (a namespace you can prove to the registry) to \
             [package.metadata.mcp] in Cargo.toml, or a GitHub repository to [package]"
        );
        krate.mcp.registry_name = Some("io.github.lovelace/notes".into());
        let server = server_json(&krate, &packages(None)).unwrap();
        assert_eq!(server["name"], "io.github.lovelace/notes");
        assert_eq!(
            server["packages"][0]["identifier"],
            "https://github.com/lovelace/notes/releases/download/v0.2.0/my-server-0.2.0-linux-x86_64.mcpb"
        );
        assert!(server.get("repository").is_none());
        krate.mcp.registry_name = Some("com.example.notes".into());
        assert!(server_json(&krate, &packages(None)).is_err());
        krate.mcp.registry_name = Some("com.example/notes".into());
        assert_eq!(
            server_json(&krate, &packages(None))
                .unwrap_err()
                .to_string(),
            "cannot tell where the bundle will be downloaded from: give --release-url URL, or \
             release-url in [package.metadata.mcp]"
        );
    }

    #[test]
    fn the_registry_rules_beside_the_schema_are_kept() {
        let mut krate = krate();
        assert_eq!(
            server_json(&krate, &packages(Some("ghcr.io/ada/my-server")))
                .unwrap_err()
                .to_string(),
            "the image \"ghcr.io/ada/my-server\" has no tag: the registry lists an image at one \
             version (ghcr.io/OWNER/my-server:0.2.0, say)"
        );
        krate.description = Some("x".repeat(101));
        assert_eq!(
            server_json(&krate, &packages(None))
                .unwrap_err()
                .to_string(),
            "the registry takes descriptions of at most 100 characters, and my-server's has \
             101: add a shorter description to [package.metadata.mcp] in Cargo.toml"
        );
        krate.mcp.description = Some("Short.".into());
        assert_eq!(
            server_json(&krate, &packages(None)).unwrap()["description"],
            "Short."
        );
    }
}
