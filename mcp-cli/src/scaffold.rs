//! `mcp new NAME`: a server crate to start from, with a tool, a prompt and a resource, a
//! README and a test that drives the server through a client in the same process; with
//! `--template app`, a server with an app (MCP Apps): a tool whose result a page shows, the
//! page, and a tool only the page calls. Either builds and passes its tests as generated.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// What `mcp new` starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Template {
    /// A tool, a prompt and a resource.
    #[default]
    Server,
    /// A tool with an interface (MCP Apps): an HTML page that hosts render beside the
    /// conversation, and that calls a tool back.
    App,
}

impl Template {
    /// The files of the crate, by path, with `{name}`, `{crate}`, `{dependency}`, `{author}`
    /// and `{account}` to fill.
    fn files(self) -> &'static [(&'static str, &'static str)] {
        const MAIN_RS: &str = include_str!("scaffold/main.rs.txt");
        const GITIGNORE: &str = "/target\n";
        const DOCKERFILE: &str = include_str!("scaffold/Dockerfile.txt");
        const DOCKERIGNORE: &str = "target\n";
        match self {
            Template::Server => &[
                ("Cargo.toml", include_str!("scaffold/Cargo.toml.txt")),
                ("README.md", include_str!("scaffold/README.md.txt")),
                ("src/lib.rs", include_str!("scaffold/lib.rs.txt")),
                ("src/main.rs", MAIN_RS),
                ("tests/server.rs", include_str!("scaffold/test.rs.txt")),
                (".gitignore", GITIGNORE),
                ("Dockerfile", DOCKERFILE),
                (".dockerignore", DOCKERIGNORE),
            ],
            Template::App => &[
                ("Cargo.toml", include_str!("scaffold/app/Cargo.toml.txt")),
                ("README.md", include_str!("scaffold/app/README.md.txt")),
                ("src/lib.rs", include_str!("scaffold/app/lib.rs.txt")),
                ("src/main.rs", MAIN_RS),
                (
                    "app/counter.html",
                    include_str!("scaffold/app/counter.html"),
                ),
                ("tests/server.rs", include_str!("scaffold/app/test.rs.txt")),
                (".gitignore", GITIGNORE),
                ("Dockerfile", DOCKERFILE),
                (".dockerignore", DOCKERIGNORE),
            ],
        }
    }
}

/// Where the new crate gets the SDK from.
pub enum Sdk {
    /// crates.io, at this version requirement.
    Registry(&'static str),
    /// A checkout of the SDK: the folder holding `mcp-runtime`.
    Path(PathBuf),
    /// A git repository.
    Git(String),
}

impl Sdk {
    /// The SDK `mcp` was built with: the checkout it was built in, when it was built in one
    /// that is still where it was; otherwise (installed from crates.io) `mcp-runtime` from
    /// crates.io at `mcp`'s own version, which is the SDK's.
    pub fn own() -> Sdk {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent();
        match root {
            Some(root) if root.join("mcp-runtime/Cargo.toml").is_file() => {
                Sdk::Path(root.to_path_buf())
            }
            _ => Sdk::Registry(env!("CARGO_PKG_VERSION")),
        }
    }

    fn dependency(&self) -> String {
        match self {
            Sdk::Registry(version) => format!("{version:?}"),
            Sdk::Path(root) => format!(
                "{{ path = {:?} }}",
                root.join("mcp-runtime").display().to_string()
            ),
            Sdk::Git(url) => format!("{{ git = {url:?} }}"),
        }
    }
}

/// What `Cargo.toml` says for an author `mcp new` could not tell; `mcp pack` refuses it.
pub const UNKNOWN_AUTHOR: &str = "AUTHOR";

/// What `Cargo.toml` says for a GitHub account `mcp new` could not tell; `mcp pack` refuses it.
pub const UNKNOWN_ACCOUNT: &str = "ACCOUNT";

/// Who publishes the new crate: its author (`Cargo.toml`'s `authors`, the bundle's author)
/// and the GitHub account its name in the MCP registry is under (`io.github.ACCOUNT/NAME`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publisher {
    /// `Name <email>`, or `Name`.
    pub author: String,
    /// A GitHub account name.
    pub account: String,
}

impl Publisher {
    /// From git's configuration (`user.name`, `user.email`, `github.user`), else the login
    /// name; the generated `Cargo.toml` says where to change them.
    pub fn detect() -> Publisher {
        let git = |key: &str| {
            std::process::Command::new("git")
                .args(["config", "--get", key])
                .output()
                .ok()
                .filter(|output| output.status.success())
                .and_then(|output| String::from_utf8(output.stdout).ok())
                .map(|value| value.trim().to_string())
                .filter(|value| !value.is_empty())
        };
        let login = std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .ok();
        Publisher::from_parts(
            git("user.name").or(login.clone()),
            git("user.email"),
            git("github.user").or(login),
        )
    }

    /// A publisher from what is known of them, made fit for a TOML string and a registry
    /// namespace; [`UNKNOWN_AUTHOR`] and [`UNKNOWN_ACCOUNT`] stand for what is not known.
    fn from_parts(name: Option<String>, email: Option<String>, account: Option<String>) -> Self {
        let plain = |text: String| -> String {
            text.chars()
                .filter(|c| !matches!(c, '"' | '\\') && !c.is_control())
                .collect()
        };
        let name = name.map(plain).filter(|name| !name.trim().is_empty());
        let author = match (name, email.map(plain)) {
            (Some(name), Some(email)) => format!("{} <{email}>", name.trim()),
            (Some(name), None) => name.trim().to_string(),
            (None, _) => UNKNOWN_AUTHOR.to_string(),
        };
        let account: String = account
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        Publisher {
            author,
            account: if account.is_empty() {
                UNKNOWN_ACCOUNT.to_string()
            } else {
                account
            },
        }
    }
}

/// Writes the crate `name` from `template` in the new folder `dir`; returns the files written.
pub fn create(
    name: &str,
    dir: &Path,
    sdk: &Sdk,
    publisher: &Publisher,
    template: Template,
) -> anyhow::Result<Vec<PathBuf>> {
    check_name(name)?;
    if dir.exists() {
        bail!(
            "{} exists already: choose another name or --path",
            dir.display()
        );
    }
    let fill = |template: &str| {
        template
            .replace("{name}", name)
            .replace("{crate}", &name.replace('-', "_"))
            .replace("{dependency}", &sdk.dependency())
            .replace("{author}", &publisher.author)
            .replace("{account}", &publisher.account)
    };
    let mut written = Vec::new();
    for (path, template) in template.files() {
        let (path, text) = (dir.join(path), fill(template));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The manifest of a Cargo workspace that encloses `dir`, if any, and the path of `dir` from
/// the workspace's folder (what its `members` would list): Cargo refuses to build a package
/// inside a workspace that does not list it.
pub fn enclosing_workspace(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let dir = dir.canonicalize().ok()?;
    dir.ancestors().skip(1).find_map(|folder| {
        let manifest = folder.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).ok()?;
        let member = dir.strip_prefix(folder).ok()?.to_path_buf();
        text.lines()
            .any(|line| line.trim() == "[workspace]")
            .then_some((manifest, member))
    })
}

/// Refuses a name Cargo would refuse for a package.
fn check_name(name: &str) -> anyhow::Result<()> {
    let valid = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if !valid {
        bail!(
            "{name:?} cannot name a crate: use letters, digits, `-` and `_`, starting with a \
             letter"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> Publisher {
        Publisher {
            author: "Ada Lovelace <ada@example.com>".into(),
            account: "ada".into(),
        }
    }

    #[test]
    fn names_are_checked_and_templates_filled() {
        assert_eq!(
            check_name("9lives").unwrap_err().to_string(),
            "\"9lives\" cannot name a crate: use letters, digits, `-` and `_`, starting with a letter"
        );
        let dir = std::env::temp_dir().join(format!("mcp-new-unit-{}", std::process::id()));
        let git = Sdk::Git("https://example.com/sdk".into());
        let files = create("my-server", &dir, &git, &ada(), Template::Server).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|file| file.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "Cargo.toml",
                "README.md",
                "src/lib.rs",
                "src/main.rs",
                "tests/server.rs",
                ".gitignore",
                "Dockerfile",
                ".dockerignore"
            ]
        );
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"my-server\""));
        assert!(manifest.contains("mcp-runtime = { git = \"https://example.com/sdk\" }"));
        assert!(manifest.contains("authors = [\"Ada Lovelace <ada@example.com>\"]\n"));
        assert!(manifest.contains("registry-name = \"io.github.ada/my-server\"\n"));
        let dockerfile = std::fs::read_to_string(dir.join("Dockerfile")).unwrap();
        assert!(
            dockerfile.contains(
                "LABEL io.modelcontextprotocol.server.name=\"io.github.ada/my-server\"\n"
            )
        );
        assert!(dockerfile.contains("ENTRYPOINT [\"/usr/local/bin/my-server\"]\n"));
        let test = std::fs::read_to_string(dir.join("tests/server.rs")).unwrap();
        assert!(test.contains("my_server::server()"));
        assert!(create("my-server", &dir, &git, &ada(), Template::App).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
        create(
            "my-server",
            &dir,
            &Sdk::Registry("0.1.0"),
            &ada(),
            Template::Server,
        )
        .unwrap();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("mcp-runtime = \"0.1.0\"\n"), "{manifest}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_publisher_is_made_fit_for_toml_and_the_registry() {
        assert_eq!(
            Publisher::from_parts(
                Some("Ada \"Countess\" Lovelace".into()),
                Some("ada@example.com".into()),
                Some("ada.l@work".into()),
            ),
            Publisher {
                author: "Ada Countess Lovelace <ada@example.com>".into(),
                account: "adalwork".into(),
            }
        );
        assert_eq!(
            Publisher::from_parts(None, Some("x@example.com".into()), None),
            Publisher {
                author: UNKNOWN_AUTHOR.into(),
                account: UNKNOWN_ACCOUNT.into(),
            }
        );
        assert_eq!(
            Publisher::from_parts(Some("ada".into()), None, Some("ada".into())),
            Publisher {
                author: "ada".into(),
                account: "ada".into(),
            }
        );
    }

    #[test]
    fn a_crate_inside_a_workspace_is_noticed() {
        let root = std::env::temp_dir().join(format!("mcp-new-ws-{}", std::process::id()));
        let inner = root.join("servers/one");
        std::fs::create_dir_all(&inner).unwrap();
        assert_eq!(enclosing_workspace(&inner), None);
        std::fs::write(root.join("Cargo.toml"), "[workspace]\nmembers = []\n").unwrap();
        assert_eq!(
            enclosing_workspace(&inner),
            Some((
                root.canonicalize().unwrap().join("Cargo.toml"),
                PathBuf::from("servers/one")
            ))
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
