//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server offers skills,
//! each a folder whose `SKILL.md` (YAML frontmatter, then instructions) is served as the
//! resource `skill://<name>/SKILL.md` with the skill's other files beside it.
//!
//! `skills/list` lists them ([`SkillEntry`]: the `SKILL.md` URI, its frontmatter, and every
//! file with its size and SHA-256 digest), `skills/get` returns one, and
//! `resources/directory/read` lists a skill folder's direct children when the server declares
//! `directoryRead`. Hosts verify every file they read against its entry.
//!
//! This module holds the messages and the rules of the `SKILL.md` format both sides apply:
//! [`split_frontmatter`], [`parse_frontmatter`], [`skill_digest`], [`valid_skill_name`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::meta::RequestMeta;
use crate::resources::Resource;
use crate::result::{CacheScope, ResultType, paginated_result};

/// The extension's identifier, under which servers and clients declare it.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of `SKILL.md`.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";

/// The MIME type of a directory in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The most files a skill should have (hosts warn beyond it).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files should weigh together (hosts warn beyond it).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// A skill, as `skills/list` and `skills/get` describe it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`, for example `skill://pdf-processing/SKILL.md`.
    pub uri: String,
    /// The frontmatter of its `SKILL.md`, as JSON.
    #[serde(default)]
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, `SKILL.md` included, each with its size and digest.
    #[serde(default)]
    pub resources: Vec<SkillFile>,
    /// Anything else said of the skill, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillEntry {
    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub fn new(
        uri: impl Into<String>,
        frontmatter: Map<String, Value>,
        files: Vec<SkillFile>,
    ) -> Self {
        SkillEntry {
            uri: uri.into(),
            frontmatter,
            resources: files,
            extra: Map::new(),
        }
    }

    /// What the entry lists for the file `uri`, if it lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.resources.iter().find(|file| file.uri == uri)
    }
}

/// A file of a skill: where it is and what its content must be.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// `sha256:` and the 64 lowercase hex digits of the SHA-256 of its raw bytes.
    pub digest: String,
    /// Its length in bytes: the same bytes the digest covers.
    pub size: u64,
    /// Anything else said of the file, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SkillFile {
    /// The file `uri` whose content is `bytes`.
    pub fn of(uri: impl Into<String>, bytes: &[u8]) -> Self {
        SkillFile {
            uri: uri.into(),
            digest: skill_digest(bytes),
            size: bytes.len() as u64,
            extra: Map::new(),
        }
    }
}

paginated_result!(
    /// One page of `skills/list`.
    ListSkillsResult, "skills", skills: SkillEntry, "the skills"
);

/// The params of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

impl GetSkillRequestParams {
    /// The params asking for the skill at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        GetSkillRequestParams {
            uri: uri.into(),
            meta: None,
        }
    }
}

/// The result of `skills/get`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// The skill, as `skills/list` lists it.
    pub skill: SkillEntry,
    /// How long the client may cache this result, in milliseconds (2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "crate::render::skip::before_2026_07_28"
    )]
    pub ttl_ms: u64,
    /// Who may reuse the cached result (2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "crate::render::skip::before_2026_07_28"
    )]
    pub cache_scope: CacheScope,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<crate::meta::ResultMeta>,
    /// Always complete (2026-07-28).
    #[serde(
        default,
        skip_serializing_if = "crate::render::skip::before_2026_07_28"
    )]
    pub result_type: ResultType,
}

impl GetSkillResult {
    /// The result carrying `skill`.
    pub fn new(skill: SkillEntry) -> Self {
        GetSkillResult {
            skill,
            ttl_ms: 0,
            cache_scope: CacheScope::default(),
            meta: None,
            result_type: ResultType::Complete,
        }
    }
}

crate::result::cacheable!(GetSkillResult);

/// The params of `resources/directory/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadDirectoryRequestParams {
    /// The directory: a skill's URI without `/SKILL.md`, or one of its sub-folders.
    pub uri: String,
    /// Where the page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<crate::params::Cursor>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

paginated_result!(
    /// One page of `resources/directory/read`: the directory's direct children, sub-folders
    /// with the MIME type [`DIRECTORY_MIME_TYPE`].
    ReadDirectoryResult, "resources/directory", resources: Resource, "the children"
);

/// The digest of `bytes` as skills list them: `sha256:` and 64 lowercase hex digits.
pub fn skill_digest(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let hash = Sha256::digest(bytes);
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in hash.iter() {
        let _ = write!(digest, "{byte:02x}");
    }
    digest
}

/// Whether `name` is a valid skill name: 1 to 64 lowercase letters, digits and hyphens, neither
/// starting nor ending with a hyphen, and without two hyphens in a row.
pub fn valid_skill_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// Splits a `SKILL.md` into its YAML frontmatter (between a first line `---` and the next line
/// `---`, which may end with blanks) and the body after it; a leading byte order mark is
/// skipped. `None` when the text does not start with a frontmatter block.
pub fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line
            .strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or(line);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            let yaml = &rest[..offset];
            return Some((yaml, &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// Why a `SKILL.md` has no usable frontmatter.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// The file does not start with a `---` block.
    #[error("it has no frontmatter (a block between a first line `---` and a line `---`)")]
    Missing,
    /// The block is not UTF-8, not YAML, or not a mapping.
    #[error("its frontmatter cannot be read: {0}")]
    Invalid(String),
}

/// The frontmatter of a `SKILL.md` whose content is `bytes`, as a JSON object, and the body
/// after it. The YAML is read with YAML 1.2 scalars (`yes`, `on` and `y` are strings, as the
/// JavaScript `yaml` package reads them); an empty block is an empty object.
pub fn parse_frontmatter(bytes: &[u8]) -> Result<(Map<String, Value>, &str), FrontmatterError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| FrontmatterError::Invalid(format!("not UTF-8: {e}")))?;
    let (yaml, body) = split_frontmatter(text).ok_or(FrontmatterError::Missing)?;
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let value: Value = serde_saphyr::from_str_with_options(yaml, options)
        .map_err(|e| FrontmatterError::Invalid(e.to_string()))?;
    match value {
        Value::Object(map) => Ok((map, body)),
        // An empty block (or one with comments only).
        Value::Null => Ok((Map::new(), body)),
        _ => Err(FrontmatterError::Invalid("it is not a mapping".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        for good in ["pdf-processing", "a", "x1", &"a".repeat(64)] {
            assert!(valid_skill_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a_b",
            "a b",
            &"a".repeat(65),
            "é",
        ] {
            assert!(!valid_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn frontmatter_is_read_as_yaml_1_2() {
        let text = "---\nname: x\nflag: yes\nn: 3\n---\nBody.\n";
        let (frontmatter, body) = parse_frontmatter(text.as_bytes()).unwrap();
        assert_eq!(
            Value::Object(frontmatter),
            serde_json::json!({"name": "x", "flag": "yes", "n": 3})
        );
        assert_eq!(body, "Body.\n");
        assert_eq!(
            parse_frontmatter(b"no block"),
            Err(FrontmatterError::Missing)
        );
        assert!(matches!(
            parse_frontmatter(b"---\n- a\n---\n"),
            Err(FrontmatterError::Invalid(_))
        ));
    }

    #[test]
    fn digests_are_sha256_hex() {
        assert_eq!(
            skill_digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
