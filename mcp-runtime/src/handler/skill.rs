//! Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640): folders of instructions
//! and files a server offers its clients' agents.
//!
//! A skills folder holds one sub-folder per skill; a sub-folder with a `SKILL.md` is a skill,
//! named after the folder, with every other file and sub-folder in it (hidden ones, whose name
//! starts with `.`, left out). `SKILL.md` starts with YAML frontmatter that names the skill
//! (`name`, equal to the folder's name) and says when to use it (`description`):
//!
//! ```text
//! skills/
//!   pdf-processing/
//!     SKILL.md            ---\nname: pdf-processing\ndescription: Fill in PDF forms\n---\n...
//!     references/FORMS.md
//! ```
//!
//! [`McpServerBuilder::skills_dir`](crate::server::McpServerBuilder::skills_dir) reads the
//! folder when the server is built; `include_skills!("../skills")` (relative to the calling
//! file, as with `include_str!`) embeds it in the binary at compile time
//! ([`McpServerBuilder::skills`](crate::server::McpServerBuilder::skills)). Either way every
//! skill is checked when the server is built (a bad one is a [`SkillError`] naming the file and
//! the field), its files become resources (`skill://<name>/SKILL.md`, `text/markdown`, and
//! `skill://<name>/<path>` for the others, with their sizes), `skills/list` and `skills/get`
//! describe it with each file's size and SHA-256 digest, `resources/directory/read` lists its
//! folders, and the server declares the extension (with `directoryRead`).
//! [`McpServer::add_skill`](crate::server::McpServer::add_skill) adds one at run time.
//!
//! A [`Skill`] is a definition, like a tool's or a resource's: this module reads and checks it;
//! the server registers it and answers the `skills/*` requests.
//!
//! The guide's chapter "Skills" (`docs/src/skills.md`) teaches it with examples.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_runtime_core::resources::Resource;
use mcp_runtime_core::skills::{
    DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD_MIME_TYPE, SkillEntry,
    SkillFile, parse_frontmatter, valid_skill_name,
};
use serde_json::{Map, Value};

use super::resource::ResourceDefinition;

/// The name of a skill's main file.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// The prefix reserved for the MCP specification in `metadata` keys.
const RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

/// A skill: its `SKILL.md`, parsed and checked, and its other files.
#[derive(Clone, Debug)]
pub struct Skill {
    name: String,
    frontmatter: Map<String, Value>,
    /// Every file, `SKILL.md` first, then by path; paths `/`-separated, relative to the skill.
    files: Vec<(String, Arc<[u8]>)>,
    /// What `skills/list` says of it: made once, since it hashes every file.
    entry: SkillEntry,
}

/// Why a skill cannot be served. Each names the file (as the folder or the macro gave it) and
/// what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {reason}")]
    Io {
        /// The file or folder.
        path: String,
        /// Why.
        reason: String,
    },
    /// The `SKILL.md` of a skill has no usable frontmatter.
    #[error("{file}: {reason}")]
    Frontmatter {
        /// The `SKILL.md`.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A field of the frontmatter breaks a rule of the skills extension.
    #[error("{file}: `{field}` {problem}")]
    Field {
        /// The `SKILL.md`.
        file: String,
        /// The field.
        field: String,
        /// What is wrong with it, and what it must be.
        problem: String,
    },
    /// The skill is larger than the extension allows.
    #[error("{skill}: {problem}")]
    TooLarge {
        /// The skill's folder.
        skill: String,
        /// Which limit.
        problem: String,
    },
}

impl Skill {
    /// The skill `name`, of `files` (paths relative to the skill's folder, `/`-separated, one
    /// of them `SKILL.md`), checked as the module documentation says. `source` names the
    /// skill's folder in errors.
    pub fn new<P: Into<String>, B: Into<Arc<[u8]>>>(
        name: impl Into<String>,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Skill, SkillError> {
        let name = name.into();
        Skill::checked(
            &name,
            &name,
            files
                .into_iter()
                .map(|(p, b)| (p.into(), b.into()))
                .collect(),
        )
    }

    fn checked(
        name: &str,
        source: &str,
        mut files: Vec<(String, Arc<[u8]>)>,
    ) -> Result<Skill, SkillError> {
        let skill_md = format!("{source}/{SKILL_MD}");
        let field = |field: &str, problem: String| SkillError::Field {
            file: skill_md.clone(),
            field: field.to_owned(),
            problem,
        };
        files.sort_by(|(a, _), (b, _)| (a != SKILL_MD, a).cmp(&(b != SKILL_MD, b)));
        let Some((_, text)) = files.first().filter(|(path, _)| path == SKILL_MD) else {
            return Err(SkillError::Io {
                path: skill_md,
                reason: "a skill's folder must hold a SKILL.md".into(),
            });
        };
        let (frontmatter, _) =
            parse_frontmatter(text).map_err(|error| SkillError::Frontmatter {
                file: skill_md.clone(),
                reason: error.to_string(),
            })?;
        match frontmatter.get("name") {
            Some(Value::String(n)) if n == name => {}
            Some(other) => {
                return Err(field(
                    "name",
                    format!("is {other}, but must be the folder's name, {name:?}"),
                ));
            }
            None => return Err(field("name", format!("is missing: add `name: {name}`"))),
        }
        if !valid_skill_name(name) {
            return Err(field(
                "name",
                format!(
                    "is {name:?}: a skill name is 1 to 64 lowercase letters, digits and hyphens, \
                     without a hyphen at either end or two in a row (rename the folder too)"
                ),
            ));
        }
        match frontmatter.get("description") {
            Some(Value::String(d)) if !d.trim().is_empty() => {}
            _ => {
                return Err(field(
                    "description",
                    "is missing or empty: say what the skill does and when to use it".into(),
                ));
            }
        }
        if let Some(metadata) = frontmatter.get("metadata") {
            let Value::Object(metadata) = metadata else {
                return Err(field("metadata", "must be a mapping".into()));
            };
            if let Some(key) = metadata.keys().find(|k| k.starts_with(RESERVED_PREFIX)) {
                return Err(field(
                    "metadata",
                    format!("has the key {key:?}, whose prefix {RESERVED_PREFIX} is reserved"),
                ));
            }
        }
        if let Some(meta) = frontmatter.get("_meta") {
            let Value::Object(meta) = meta else {
                return Err(field("_meta", "must be a mapping".into()));
            };
            if let Some(key) = meta.keys().find(|k| !meta_key(k)) {
                return Err(field(
                    "_meta",
                    format!(
                        "has the key {key:?}: keys start with a reverse-DNS prefix and a slash, \
                         as `com.example/key`"
                    ),
                ));
            }
        }
        if files.len() > MAX_SKILL_FILES {
            return Err(SkillError::TooLarge {
                skill: source.to_owned(),
                problem: format!("{} files, more than {MAX_SKILL_FILES}", files.len()),
            });
        }
        let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        if total > MAX_SKILL_BYTES {
            return Err(SkillError::TooLarge {
                skill: source.to_owned(),
                problem: format!("{total} bytes in all, more than {MAX_SKILL_BYTES}"),
            });
        }
        let uri = |path: &str| format!("skill://{name}/{path}");
        let entry = SkillEntry::new(
            uri(SKILL_MD),
            frontmatter.clone(),
            files
                .iter()
                .map(|(path, bytes)| SkillFile::of(uri(path), bytes))
                .collect(),
        );
        Ok(Skill {
            name: name.to_owned(),
            frontmatter,
            files,
            entry,
        })
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The URI of its `SKILL.md`: `skill://<name>/SKILL.md`.
    pub fn uri(&self) -> String {
        format!("skill://{}/{SKILL_MD}", self.name)
    }

    /// The frontmatter of its `SKILL.md`.
    pub fn frontmatter(&self) -> &Map<String, Value> {
        &self.frontmatter
    }

    /// What `skills/list` says of it: every file with its size and SHA-256 digest.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    fn file_uri(&self, path: &str) -> String {
        format!("skill://{}/{path}", self.name)
    }

    /// Its files as resources: `SKILL.md` named and described as its frontmatter says, the
    /// others named by their path.
    pub(crate) fn resources(&self) -> Vec<ResourceDefinition> {
        let text = |field: &str| self.frontmatter.get(field).and_then(Value::as_str);
        self.files
            .iter()
            .map(|(path, bytes)| {
                let uri = self.file_uri(path);
                let name = match path.as_str() {
                    SKILL_MD => text("name").unwrap_or(&self.name).to_owned(),
                    _ => path.clone(),
                };
                let definition = match std::str::from_utf8(bytes) {
                    Ok(text) => {
                        let text: Arc<str> = Arc::from(text);
                        ResourceDefinition::new(uri, name, move |_| {
                            let text = text.clone();
                            async move { text.to_string() }
                        })
                    }
                    Err(_) => {
                        let bytes = bytes.clone();
                        ResourceDefinition::new(uri, name, move |_| {
                            let bytes = bytes.clone();
                            async move { bytes.to_vec() }
                        })
                    }
                };
                let definition = definition
                    .mime_type(mime_type(path))
                    .size(bytes.len() as u64);
                match text("description").filter(|_| path == SKILL_MD) {
                    Some(description) => definition.description(description),
                    None => definition,
                }
            })
            .collect()
    }

    /// The direct children of the folder `dir` of the skill (`""` for its root): its files,
    /// then its sub-folders; `None` when the skill has no such folder.
    pub(crate) fn children(&self, dir: &str) -> Option<Vec<Resource>> {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut files = Vec::new();
        let mut folders: Vec<String> = Vec::new();
        for (path, bytes) in &self.files {
            let Some(rest) = path.strip_prefix(&prefix) else {
                continue;
            };
            match rest.split_once('/') {
                None => {
                    let mut resource = Resource::new(self.file_uri(path), rest);
                    resource.mime_type = Some(mime_type(path).to_owned());
                    resource.size = Some(bytes.len() as u64);
                    files.push(resource);
                }
                Some((folder, _)) if !folders.iter().any(|f| f == folder) => {
                    folders.push(folder.to_owned());
                }
                Some(_) => {}
            }
        }
        if files.is_empty() && folders.is_empty() {
            return None;
        }
        files.extend(folders.into_iter().map(|folder| {
            let mut resource = Resource::new(self.file_uri(&format!("{prefix}{folder}")), folder);
            resource.mime_type = Some(DIRECTORY_MIME_TYPE.to_owned());
            resource
        }));
        Some(files)
    }
}

/// Whether `key` is a `_meta` key with a reverse-DNS prefix (`com.example/key`).
fn meta_key(key: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else {
        return false;
    };
    let labels: Vec<&str> = prefix.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// The MIME type of the file `path`, by its extension.
fn mime_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => SKILL_MD_MIME_TYPE,
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/typescript",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// The skills of a folder embedded at compile time by `include_skills!`: every file under the
/// folder, with its path relative to it.
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedSkills {
    folder: &'static str,
    files: &'static [(&'static str, &'static [u8])],
}

impl EmbeddedSkills {
    /// The skills of `files` (paths relative to the skills folder `folder`, `/`-separated);
    /// what `include_skills!` expands to.
    pub const fn new(
        folder: &'static str,
        files: &'static [(&'static str, &'static [u8])],
    ) -> Self {
        EmbeddedSkills { folder, files }
    }

    /// The skills, checked.
    pub fn skills(&self) -> Result<Vec<Skill>, SkillError> {
        group(
            self.folder,
            self.files
                .iter()
                .map(|(path, bytes)| ((*path).to_owned(), Arc::<[u8]>::from(*bytes)))
                .collect(),
        )
    }
}

/// The skills of the folder `folder`, read now.
pub fn read_skills_dir(folder: impl AsRef<Path>) -> Result<Vec<Skill>, SkillError> {
    let folder = folder.as_ref();
    let mut files = Vec::new();
    collect(folder, folder, &mut files)?;
    group(&folder.display().to_string(), files)
}

/// Adds every file under `dir` (hidden ones left out) to `files`, with its path relative to
/// `root`.
fn collect(
    root: &Path,
    dir: &Path,
    files: &mut Vec<(String, Arc<[u8]>)>,
) -> Result<(), SkillError> {
    let failed = |path: &Path, error: std::io::Error| SkillError::Io {
        path: path.display().to_string(),
        reason: error.to_string(),
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| failed(dir, e))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| failed(dir, e))?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files)?;
        } else {
            let bytes = std::fs::read(&path).map_err(|e| failed(&path, e))?;
            let relative = path
                .strip_prefix(root)
                .map_err(|_| SkillError::Io {
                    path: path.display().to_string(),
                    reason: "it is outside the skills folder".into(),
                })?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, bytes.into()));
        }
    }
    Ok(())
}

/// The skills of `files` (paths relative to the skills folder `folder`): one per first-level
/// folder holding a `SKILL.md`. Files outside such folders are left out.
fn group(folder: &str, files: Vec<(String, Arc<[u8]>)>) -> Result<Vec<Skill>, SkillError> {
    let mut names: Vec<String> = files
        .iter()
        .filter_map(|(path, _)| path.strip_suffix(&format!("/{SKILL_MD}")))
        .filter(|name| !name.contains('/'))
        .map(str::to_owned)
        .collect();
    names.sort();
    names
        .iter()
        .map(|name| {
            let prefix = format!("{name}/");
            let own = files
                .iter()
                .filter_map(|(path, bytes)| {
                    path.strip_prefix(&prefix)
                        .map(|rest| (rest.to_owned(), bytes.clone()))
                })
                .collect();
            Skill::checked(name, &format!("{folder}/{name}"), own)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL_MD_TEXT: &str = "---\nname: pdf\ndescription: Fill in forms\n---\nDo it.\n";

    #[test]
    fn a_skill_lists_its_files_with_sizes_and_digests() {
        let skill = Skill::new(
            "pdf",
            [
                ("references/FORMS.md", &b"forms"[..]),
                ("SKILL.md", SKILL_MD_TEXT.as_bytes()),
            ],
        )
        .unwrap();
        let entry = skill.entry();
        assert_eq!(entry.uri, "skill://pdf/SKILL.md");
        assert_eq!(entry.frontmatter["description"], "Fill in forms");
        let uris: Vec<_> = entry.resources.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            ["skill://pdf/SKILL.md", "skill://pdf/references/FORMS.md"]
        );
        assert_eq!(entry.resources[1].size, 5);
        assert_eq!(
            entry.resources[1].digest,
            mcp_runtime_core::skills::skill_digest(b"forms")
        );
        let root: Vec<_> = skill
            .children("")
            .unwrap()
            .into_iter()
            .map(|r| (r.uri, r.mime_type.unwrap()))
            .collect();
        assert_eq!(
            root,
            [
                (
                    "skill://pdf/SKILL.md".to_owned(),
                    "text/markdown".to_owned()
                ),
                (
                    "skill://pdf/references".to_owned(),
                    "inode/directory".to_owned()
                )
            ]
        );
        assert!(skill.children("SKILL.md").is_none());
        assert!(skill.children("nowhere").is_none());
    }

    #[test]
    fn bad_skills_are_errors_naming_the_file_and_the_field() {
        let error = |files: Vec<(&str, &str)>| {
            Skill::checked(
                "pdf",
                "skills/pdf",
                files
                    .into_iter()
                    .map(|(p, t)| (p.to_owned(), Arc::from(t.as_bytes())))
                    .collect(),
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            error(vec![("README.md", "x")]),
            "cannot read skills/pdf/SKILL.md: a skill's folder must hold a SKILL.md"
        );
        assert_eq!(
            error(vec![("SKILL.md", "no frontmatter")]),
            "skills/pdf/SKILL.md: it has no frontmatter (a block between a first line `---` and a line `---`)"
        );
        assert_eq!(
            error(vec![(
                "SKILL.md",
                "---\nname: other\ndescription: d\n---\n"
            )]),
            "skills/pdf/SKILL.md: `name` is \"other\", but must be the folder's name, \"pdf\""
        );
        assert_eq!(
            error(vec![("SKILL.md", "---\nname: pdf\n---\n")]),
            "skills/pdf/SKILL.md: `description` is missing or empty: say what the skill does and when to use it"
        );
        assert_eq!(
            error(vec![(
                "SKILL.md",
                "---\nname: pdf\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n"
            )]),
            "skills/pdf/SKILL.md: `metadata` has the key \"io.modelcontextprotocol/x\", whose prefix io.modelcontextprotocol/ is reserved"
        );
        assert_eq!(
            error(vec![(
                "SKILL.md",
                "---\nname: pdf\ndescription: d\n_meta:\n  plain: 1\n---\n"
            )]),
            "skills/pdf/SKILL.md: `_meta` has the key \"plain\": keys start with a reverse-DNS prefix and a slash, as `com.example/key`"
        );
        let bad_name = Skill::checked(
            "Bad_Name",
            "skills/Bad_Name",
            vec![(
                "SKILL.md".into(),
                Arc::from(&b"---\nname: Bad_Name\ndescription: d\n---\n"[..]),
            )],
        )
        .unwrap_err();
        assert!(matches!(bad_name, SkillError::Field { ref field, .. } if field == "name"));
    }

    #[test]
    fn a_folder_groups_its_skills() {
        let skills = group(
            "skills",
            vec![
                ("pdf/SKILL.md".into(), Arc::from(SKILL_MD_TEXT.as_bytes())),
                ("pdf/a/b.txt".into(), Arc::from(&b"b"[..])),
                ("README.md".into(), Arc::from(&b"not a skill"[..])),
            ],
        )
        .unwrap();
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].files.len(), 2);
        assert!(meta_key("com.example/key"));
        assert!(!meta_key("example/key"));
    }
}
