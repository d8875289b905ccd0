//! `mcp pack`: the published schemas it checks bundles and server.json against, and what it
//! says of a crate it cannot pack yet. A new server packed from the packages alone, with the
//! bundle validated by the official tool, is `scripts/package.sh`'s last step.

use std::process::Command;

use tests::interop::{installed, package_binary, repo_root};
use tests::scaffold::NewCrate;

/// The copies in `mcp-cli/schemas/` are byte for byte what the package registries serve: the
/// bundle manifest's schema in npm `@anthropic-ai/mcpb`, the MCP registry's server.json schema
/// in the wheel `scripts/install-interop.sh` takes it from.
#[test]
fn the_schemas_pack_checks_against_are_the_published_ones() {
    for (ours, published) in [
        (
            "mcpb-manifest-v0.3.schema.json",
            "interop/node_modules/@anthropic-ai/mcpb/schemas/mcpb-manifest-v0.3.schema.json",
        ),
        (
            "server-2025-12-11.schema.json",
            ".tools/schemas/server-2025-12-11.schema.json",
        ),
    ] {
        let ours = std::fs::read(repo_root().join("mcp-cli/schemas").join(ours)).unwrap();
        let published = std::fs::read(installed(published)).unwrap();
        assert!(ours == published, "{published:?} differs from its copy");
    }
}

/// What a bundle or the registry needs and `Cargo.toml` lacks is said before anything is
/// built, in the crate's terms, and nothing is written.
#[test]
fn pack_says_what_cargo_toml_lacks_before_building() {
    let new = NewCrate::create("server", "pack-lacks");
    let manifest = new.dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\nauthors = [\"ada\"]\n"), "{text}");
    assert!(
        text.contains("\nregistry-name = \"io.github.ada/pack-lacks\"\n"),
        "{text}"
    );
    let pack = || {
        Command::new(package_binary("mcp-runtime-cli", "mcp"))
            .arg("pack")
            .current_dir(&new.dir)
            .env("CARGO_TARGET_DIR", new.dir.join("target"))
            .output()
            .expect("mcp runs")
    };
    let without = |prefix: &str| -> String {
        let kept: Vec<&str> = text
            .lines()
            .filter(|line| !line.starts_with(prefix))
            .collect();
        kept.join("\n") + "\n"
    };
    let cases = [
        (
            without("authors"),
            "mcp: pack-lacks names no author, whom a bundle must name: add authors = \
             [\"Your Name <you@example.com>\"] to [package] in Cargo.toml\n",
        ),
        (
            without("description"),
            "mcp: pack-lacks has no description, which a bundle shows its users: add \
             description = \"...\" to [package] in Cargo.toml\n",
        ),
        (
            without("registry-name"),
            "mcp: pack-lacks has no name in the MCP registry: add registry-name = \
             \"io.github.OWNER/pack-lacks\" (a namespace you can prove to the registry) to \
             [package.metadata.mcp] in Cargo.toml, or a GitHub repository to [package]\n",
        ),
        (
            without("registry-name") + "registry-name = \"io.github.ada/x/pack-lacks\"\n",
            "mcp: registry-name \"io.github.ada/x/pack-lacks\" in [package.metadata.mcp] is \
             not NAMESPACE/NAME (io.github.OWNER/pack-lacks, say)\n",
        ),
        (
            text.replace("[\"ada\"]", "[\"AUTHOR\"]"),
            "mcp: pack-lacks's authors in Cargo.toml still say \"AUTHOR\", which `mcp new` \
             wrote for want of a name: put yours there (\"Your Name <you@example.com>\")\n",
        ),
        (
            text.replace("io.github.ada/", "io.github.ACCOUNT/"),
            "mcp: registry-name \"io.github.ACCOUNT/pack-lacks\" in [package.metadata.mcp] \
             still says ACCOUNT, which `mcp new` wrote for want of a GitHub account: put yours \
             there (io.github.YOU/pack-lacks)\n",
        ),
        (
            text.clone() + "image = \"ghcr.io/ada/pack-lacks\"\n",
            "mcp: the image \"ghcr.io/ada/pack-lacks\" has no tag: the registry lists an image \
             at one version (ghcr.io/OWNER/pack-lacks:0.1.0, say)\n",
        ),
        (
            text.clone() + "registry = \"io.github.ada/pack-lacks\"\n",
            "mcp: [package.metadata.mcp] of pack-lacks is not as `mcp pack` reads it: unknown \
             field `registry`, expected one of `registry-name`, `title`, `description`, \
             `args`, `release-url`, `image`\n",
        ),
    ];
    for (changed, said) in cases {
        std::fs::write(&manifest, changed).unwrap();
        let output = pack();
        assert_eq!(String::from_utf8_lossy(&output.stderr), said);
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty());
        assert!(!new.dir.join("target").exists(), "nothing is built");
    }
}
