//! Crates written by `mcp new`, built with the workspace's dependencies: what the tests of the
//! scaffold (`cli.rs`) and of the app template in a browser (`apps_browser.rs`) start from.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::interop::{package_binary, repo_root};

/// A crate `mcp new` wrote in a folder of its own, removed on drop.
pub struct NewCrate {
    /// The folder holding the crate's folder.
    root: PathBuf,
    /// The crate's folder.
    pub dir: PathBuf,
    /// What `mcp new` printed.
    pub created: String,
}

impl NewCrate {
    /// Runs `mcp new NAME --template TEMPLATE` in a fresh temporary folder, as the user `ada`
    /// with no git configuration, and gives the crate
    /// the workspace's lock file, so that it builds with the versions the workspace built.
    pub fn create(template: &str, name: &str) -> NewCrate {
        let root = std::env::temp_dir().join(format!("mcp-new-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join(name);
        let output = Command::new(package_binary("mcp-runtime-cli", "mcp"))
            .args(["new", name, "--template", template, "--path"])
            .arg(&dir)
            // The author and GitHub account it writes: git's configuration left out, the login
            // name `ada`.
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("USER", "ada")
            .output()
            .expect("mcp runs");
        assert!(
            output.status.success(),
            "mcp new failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::copy(repo_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        NewCrate {
            root,
            dir,
            created: String::from_utf8(output.stdout).expect("UTF-8 output"),
        }
    }

    /// Runs `cargo ARGS` in the crate, with the workspace's target folder and debug-info level
    /// (CI's, when it sets one), so that the dependencies the workspace built are reused.
    pub fn cargo(&self, args: &[&str]) -> Output {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        Command::new(cargo)
            .args(args)
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", target_dir())
            .env(
                "CARGO_PROFILE_DEV_DEBUG",
                std::env::var("CARGO_PROFILE_DEV_DEBUG")
                    .unwrap_or_else(|_| "line-tables-only".into()),
            )
            .output()
            .expect("cargo runs")
    }

    /// Builds the crate's binary `name` and returns its path.
    pub fn build(&self, name: &str) -> PathBuf {
        let built = self.cargo(&["build", "--quiet"]);
        assert!(
            built.status.success(),
            "the new crate does not build:\n{}",
            String::from_utf8_lossy(&built.stderr)
        );
        target_dir().join("debug").join(name)
    }
}

impl Drop for NewCrate {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The workspace's target folder.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| {
            if dir.is_relative() {
                repo_root().join(dir)
            } else {
                dir
            }
        })
        .unwrap_or_else(|| repo_root().join("target"))
}
