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
    /// The files of the crate, by path, with `{name}`, `{crate}` and `{dependency}` to fill.
    fn files(self) -> &'static [(&'static str, &'static str)] {
        const MAIN_RS: &str = include_str!("scaffold/main.rs.txt");
        const GITIGNORE: &str = "/target\n";
        match self {
            Template::Server => &[
                ("Cargo.toml", include_str!("scaffold/Cargo.toml.txt")),
                ("README.md", include_str!("scaffold/README.md.txt")),
                ("src/lib.rs", include_str!("scaffold/lib.rs.txt")),
                ("src/main.rs", MAIN_RS),
                ("tests/server.rs", include_str!("scaffold/test.rs.txt")),
                (".gitignore", GITIGNORE),
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
            ],
        }
    }
}

/// Where the new crate gets the SDK from.
pub enum Sdk {
    /// A checkout of the SDK: the folder holding `mcp-runtime`.
    Path(PathBuf),
    /// A git repository.
    Git(String),
}

impl Sdk {
    /// The SDK `mcp` was built from, when its checkout is still where it was.
    pub fn own() -> Option<Sdk> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
        root.join("mcp-runtime/Cargo.toml")
            .is_file()
            .then(|| Sdk::Path(root.to_path_buf()))
    }

    fn dependency(&self) -> String {
        match self {
            Sdk::Path(root) => format!(
                "{{ path = {:?} }}",
                root.join("mcp-runtime").display().to_string()
            ),
            Sdk::Git(url) => format!("{{ git = {url:?} }}"),
        }
    }
}

/// Writes the crate `name` from `template` in the new folder `dir`; returns the files written.
pub fn create(
    name: &str,
    dir: &Path,
    sdk: &Sdk,
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

    #[test]
    fn names_are_checked_and_templates_filled() {
        assert_eq!(
            check_name("9lives").unwrap_err().to_string(),
            "\"9lives\" cannot name a crate: use letters, digits, `-` and `_`, starting with a letter"
        );
        let dir = std::env::temp_dir().join(format!("mcp-new-unit-{}", std::process::id()));
        let files = create(
            "my-server",
            &dir,
            &Sdk::Git("https://example.com/sdk".into()),
            Template::Server,
        )
        .unwrap();
        assert_eq!(files.len(), 6);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"my-server\""));
        assert!(manifest.contains("mcp-runtime = { git = \"https://example.com/sdk\" }"));
        let test = std::fs::read_to_string(dir.join("tests/server.rs")).unwrap();
        assert!(test.contains("my_server::server()"));
        assert!(create("my-server", &dir, &Sdk::Git(String::new()), Template::App).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
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
