//! The host side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server
//! lists skills with `skills/list`, each one a `SKILL.md` with YAML frontmatter and the files it
//! refers to, every file listed with its size and SHA-256 digest.
//!
//! A host reads a skill's files only when it needs them: never on connection, on listing or at
//! approval ([`McpClient::list_skills`] and [`McpClient::list_all_skills`] read no file). And it
//! uses nothing it could not verify: [`McpClient::load_skill`] reads `SKILL.md` and
//! [`McpClient::read_skill_file`] any other file of the skill, on demand, and both check what
//! they read with [`verify_skill_file`] against the entry, in this order: the entry lists the file
//! (else it is refused unread), its size in bytes, its digest, and for `SKILL.md` its
//! frontmatter, field by field. A file that fails a check is refused with
//! [`ClientError::Protocol`] of `resources/read` naming the check, and its content is not
//! returned. The rules in full are on [`verify_skill_file`] (this module is private, so they are
//! written where the public docs show them).

use base64::Engine;
use mcp_runtime_core::methods;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::resources::ResourceContents;
use mcp_runtime_core::skills::{
    FrontmatterError, GetSkillRequestParams, ReadDirectoryRequestParams, ReadDirectoryResult,
    split_frontmatter,
};
use serde_json::{Map, Value};

use super::pages::collect_pages;
use super::{ClientError, McpClient, RequestOptions};

use mcp_runtime_core::skills::{ListSkillsResult, SkillEntry, skill_digest};

/// The method whose answers the checks apply to, named in the errors of refused files.
const READ: &str = "resources/read";

/// A skill whose `SKILL.md` was read and verified against its entry.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The entry it was verified against.
    pub entry: SkillEntry,
    /// The whole text of `SKILL.md`.
    pub text: String,
    /// Its frontmatter, parsed (equal to the entry's, field by field).
    pub frontmatter: Map<String, Value>,
    /// What follows the frontmatter: the skill's instructions.
    pub body: String,
}

/// Why a file of a skill is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillVerificationError {
    /// The skill's entry does not list the file, so it cannot be verified.
    #[error("{uri} is not listed among the skill's resources, so it cannot be verified")]
    Unlisted {
        /// The file.
        uri: String,
    },
    /// The file does not have the size listed.
    #[error("size mismatch for {uri}: the entry lists {expected} bytes, the server sent {actual}")]
    SizeMismatch {
        /// The file.
        uri: String,
        /// The listed size.
        expected: u64,
        /// The size read.
        actual: u64,
    },
    /// The file does not have the digest listed.
    #[error("digest mismatch for {uri}: the entry lists {expected}, the content has {actual}")]
    DigestMismatch {
        /// The file.
        uri: String,
        /// The listed digest.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// `SKILL.md` does not start with a `---` frontmatter block.
    #[error("{uri} has no frontmatter (a block between a first line `---` and a line `---`)")]
    MissingFrontmatter {
        /// The file.
        uri: String,
    },
    /// The frontmatter of `SKILL.md` cannot be read: not UTF-8, not YAML, or not a mapping.
    #[error("the frontmatter of {uri} cannot be read: {reason}")]
    InvalidFrontmatter {
        /// The file.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// A field of the frontmatter of `SKILL.md` differs from the entry's.
    #[error(
        "frontmatter mismatch for {uri}: field {field:?} is {expected} in the entry but {actual} in the file"
    )]
    FrontmatterMismatch {
        /// The file.
        uri: String,
        /// The first field that differs.
        field: String,
        /// Its value in the entry (`null` when missing).
        expected: Box<Value>,
        /// Its value in the file (`null` when missing).
        actual: Box<Value>,
    },
}

impl From<SkillVerificationError> for ClientError {
    /// A refused file, as [`ClientError::Protocol`] of `resources/read`.
    fn from(error: SkillVerificationError) -> Self {
        ClientError::Protocol {
            method: READ,
            detail: error.to_string(),
        }
    }
}

/// Checks the file `uri` of the skill `entry`, read as `bytes`, as SEP-2640 asks of hosts before
/// they use a skill's file. In this order:
///
/// 1. **Listed**: the entry's `resources` must name `uri`; an unlisted file cannot be verified
///    and is refused ([`Unlisted`](SkillVerificationError::Unlisted)).
/// 2. **Size**: `bytes` (the raw content: the UTF-8 bytes of a `text`, the decoded bytes of a
///    `blob`) must be as long as the listed `size`. A wrong size is refused whatever the digest
///    ([`SizeMismatch`](SkillVerificationError::SizeMismatch)).
/// 3. **Digest**: `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes` (see
///    [`skill_digest`]) must be the listed `digest`
///    ([`DigestMismatch`](SkillVerificationError::DigestMismatch)).
/// 4. **Frontmatter**, for the skill's `SKILL.md` only (`uri` equal to the entry's `uri`): the
///    file must be UTF-8 and start with a YAML block between a first line `---` and the next line
///    `---` (a leading byte order mark, blanks ending the closing line and CRLF line ends are
///    allowed), which must be a mapping
///    ([`MissingFrontmatter`](SkillVerificationError::MissingFrontmatter),
///    [`InvalidFrontmatter`](SkillVerificationError::InvalidFrontmatter)). It is read with
///    YAML 1.2 scalars (`yes`, `on` and `y` are strings) and compared with the entry's
///    `frontmatter` over the fields of both: a field missing on one side equals `null` on the
///    other, values must be deeply equal, and numbers compare by value (`1e3` equals `1000`)
///    ([`FrontmatterMismatch`](SkillVerificationError::FrontmatterMismatch), naming the first
///    field that differs).
///
/// ```
/// use mcp_runtime::client::{SkillVerificationError, verify_skill_file};
/// use mcp_runtime::protocol::skills::{SkillEntry, skill_digest};
/// use serde_json::json;
///
/// let text = "---\nname: pdf-processing\n---\nInstructions.\n";
/// let entry: SkillEntry = serde_json::from_value(json!({
///     "uri": "skill://pdf-processing/SKILL.md",
///     "frontmatter": {"name": "pdf-processing"},
///     "resources": [{"uri": "skill://pdf-processing/SKILL.md",
///                    "digest": skill_digest(text.as_bytes()), "size": text.len()}]
/// }))?;
/// assert_eq!(verify_skill_file(&entry, &entry.uri, text.as_bytes()), Ok(()));
/// let tampered = text.replace("Instructions", "Exfiltrate!!");
/// assert!(matches!(
///     verify_skill_file(&entry, &entry.uri, tampered.as_bytes()),
///     Err(SkillVerificationError::DigestMismatch { .. })
/// ));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn verify_skill_file(
    entry: &SkillEntry,
    uri: &str,
    bytes: &[u8],
) -> Result<(), SkillVerificationError> {
    verify(entry, uri, bytes).map(drop)
}

/// [`verify_skill_file`], returning the frontmatter of a `SKILL.md`.
fn verify(
    entry: &SkillEntry,
    uri: &str,
    bytes: &[u8],
) -> Result<Option<Map<String, Value>>, SkillVerificationError> {
    let listed = entry
        .file(uri)
        .ok_or_else(|| SkillVerificationError::Unlisted { uri: uri.into() })?;
    let actual = bytes.len() as u64;
    if actual != listed.size {
        return Err(SkillVerificationError::SizeMismatch {
            uri: uri.into(),
            expected: listed.size,
            actual,
        });
    }
    let digest = skill_digest(bytes);
    if digest != listed.digest {
        return Err(SkillVerificationError::DigestMismatch {
            uri: uri.into(),
            expected: listed.digest.clone(),
            actual: digest,
        });
    }
    if uri != entry.uri {
        return Ok(None);
    }
    let found = frontmatter(uri, bytes)?;
    let fields = found
        .keys()
        .chain(entry.frontmatter.keys().filter(|k| !found.contains_key(*k)));
    for field in fields {
        let actual = found.get(field).unwrap_or(&Value::Null);
        let expected = entry.frontmatter.get(field).unwrap_or(&Value::Null);
        if !same(actual, expected) {
            return Err(SkillVerificationError::FrontmatterMismatch {
                uri: uri.into(),
                field: field.clone(),
                expected: Box::new(expected.clone()),
                actual: Box::new(actual.clone()),
            });
        }
    }
    Ok(Some(found))
}

/// The frontmatter of the `SKILL.md` at `uri`, read as `bytes`, as a JSON object.
fn frontmatter(uri: &str, bytes: &[u8]) -> Result<Map<String, Value>, SkillVerificationError> {
    match mcp_runtime_core::skills::parse_frontmatter(bytes) {
        Ok((frontmatter, _)) => Ok(frontmatter),
        Err(FrontmatterError::Missing) => {
            Err(SkillVerificationError::MissingFrontmatter { uri: uri.into() })
        }
        Err(FrontmatterError::Invalid(reason)) => Err(SkillVerificationError::InvalidFrontmatter {
            uri: uri.into(),
            reason,
        }),
    }
}

/// Whether two JSON values are deeply equal, numbers compared by value (an integer equals the
/// same number written as a float) and object members in any order.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => {
            let integer = |n: &serde_json::Number| {
                n.as_i64()
                    .map(i128::from)
                    .or_else(|| n.as_u64().map(i128::from))
            };
            match (integer(a), integer(b)) {
                (Some(a), Some(b)) => a == b,
                _ => a.as_f64() == b.as_f64(),
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same(a, b)))
        }
        (a, b) => a == b,
    }
}

/// The raw bytes of a resource's contents: the text as UTF-8, or the decoded blob.
fn contents_bytes(contents: &ResourceContents) -> Result<Vec<u8>, String> {
    match contents {
        ResourceContents::Text(text) => Ok(text.text.as_bytes().to_vec()),
        ResourceContents::Blob(blob) => base64::engine::general_purpose::STANDARD
            .decode(&blob.blob)
            .map_err(|e| format!("the blob of {} is not Base64: {e}", blob.uri)),
        _ => Err("the contents are neither text nor a blob".into()),
    }
}

impl McpClient {
    /// One page of `skills/list` (the skills of the server; no file of theirs is read).
    pub async fn list_skills(
        &self,
        cursor: Option<String>,
    ) -> Result<ListSkillsResult, ClientError> {
        let mut params = PaginatedRequestParams::default();
        params.cursor = cursor;
        self.request::<methods::ListSkills>(params, RequestOptions::new())
            .await
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri` (an unknown URI is
    /// the server's error `-32602`). Reads no file of the skill.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, ClientError> {
        let params = GetSkillRequestParams::new(uri);
        let result = self
            .request::<methods::GetSkill>(params, RequestOptions::new())
            .await?;
        Ok(result.skill)
    }

    /// One page of `resources/directory/read`: the direct children of the skill folder `uri`
    /// (a skill's URI without `/SKILL.md`, or one of its sub-folders), sub-folders with the
    /// MIME type `inode/directory`. Servers that declare `directoryRead` answer it.
    pub async fn read_directory(
        &self,
        uri: &str,
        cursor: Option<String>,
    ) -> Result<ReadDirectoryResult, ClientError> {
        let mut params = ReadDirectoryRequestParams::default();
        params.uri = uri.to_owned();
        params.cursor = cursor;
        self.request::<methods::ReadDirectory>(params, RequestOptions::new())
            .await
    }

    /// Every skill, following the cursors (see [`list_skills`](Self::list_skills)).
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        collect_pages("skills/list", |cursor| async move {
            let page = self.list_skills(cursor).await?;
            Ok((page.skills, page.next_cursor))
        })
        .await
    }

    /// Loads a skill: reads its `SKILL.md` (`resources/read` of `entry.uri`) and verifies its
    /// size, digest and frontmatter against `entry` (see [`verify_skill_file`]). A file that
    /// fails is refused with [`ClientError::Protocol`] of `resources/read` naming the check, and
    /// nothing of it is returned. Reads no other file of the skill: read those with
    /// [`read_skill_file`](Self::read_skill_file) when the skill needs them.
    ///
    /// ```no_run
    /// use mcp_runtime::client::McpClient;
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::protocol::skills::SKILLS_EXTENSION;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let client = McpClient::builder(server_info!())
    ///     .extension(SKILLS_EXTENSION, Default::default())
    ///     .connect_stdio(tokio::process::Command::new("my-skills-server"))
    ///     .await?;
    /// // Listing reads no file of any skill.
    /// for entry in client.list_all_skills().await? {
    ///     // Reads SKILL.md, verified; an error if it does not match the entry.
    ///     let skill = client.load_skill(&entry).await?;
    ///     println!("{}: {}", entry.uri, skill.body);
    ///     // Another file of the skill, when the skill needs it, verified too.
    ///     if let Some(file) = entry.resources.iter().find(|f| f.uri != entry.uri) {
    ///         let bytes = client.read_skill_file(&entry, &file.uri).await?;
    ///         println!("{}: {} bytes", file.uri, bytes.len());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
        let (bytes, frontmatter) = self.fetch_skill_file(entry, &entry.uri).await?;
        let text = String::from_utf8(bytes).map_err(|e| ClientError::Protocol {
            method: READ,
            detail: format!("{} is not UTF-8: {e}", entry.uri),
        })?;
        let body = split_frontmatter(&text)
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        Ok(LoadedSkill {
            entry: entry.clone(),
            text,
            frontmatter: frontmatter.unwrap_or_default(),
            body,
        })
    }

    /// Reads the file `uri` of the skill `entry` (`resources/read`) and returns its raw bytes
    /// once verified against the entry (see [`verify_skill_file`]): its size and digest, and for
    /// `SKILL.md` also its frontmatter. A file the entry does not list is refused without being
    /// read; a file that fails a check is refused with [`ClientError::Protocol`] of
    /// `resources/read`.
    pub async fn read_skill_file(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<Vec<u8>, ClientError> {
        self.fetch_skill_file(entry, uri)
            .await
            .map(|(bytes, _)| bytes)
    }

    /// [`read_skill_file`](Self::read_skill_file), with the frontmatter of a `SKILL.md`.
    async fn fetch_skill_file(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<(Vec<u8>, Option<Map<String, Value>>), ClientError> {
        if entry.file(uri).is_none() {
            return Err(SkillVerificationError::Unlisted { uri: uri.into() }.into());
        }
        let refused = |detail: String| ClientError::Protocol {
            method: READ,
            detail,
        };
        let read = self.read_resource(uri).await?;
        let contents = read
            .contents
            .iter()
            .find(|c| c.uri() == uri)
            .or(read.contents.first())
            .ok_or_else(|| refused(format!("the server returned no contents for {uri}")))?;
        let bytes = contents_bytes(contents).map_err(refused)?;
        let frontmatter = verify(entry, uri, &bytes)?;
        Ok((bytes, frontmatter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SKILL: &str = "skill://pdf-processing/SKILL.md";
    const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
    const GENUINE: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";
    const GENUINE_DIGEST: &str =
        "sha256:a6d5f1f48af94923633d597c756194482fe5d48f74e49eb54bc9ee7c4902d5ba";
    const FORMS_TEXT: &str = "Supporting content.\n";
    const FORMS_DIGEST: &str =
        "sha256:8548b03927f40d7dc404fa49636c29e6b73df011d0764d69a6fc4f8ae06c6a12";

    /// The entry of the conformance scenarios, with `SKILL.md` listed as `(digest, size)`.
    fn listing((digest, size): (&str, u64)) -> SkillEntry {
        serde_json::from_value(json!({
            "uri": SKILL,
            "frontmatter": {"name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                {"uri": SKILL, "digest": digest, "size": size},
                {"uri": FORMS, "digest": FORMS_DIGEST, "size": 20}
            ]
        }))
        .unwrap()
    }

    /// An entry whose frontmatter is `frontmatter` and whose `SKILL.md` is listed as `text`.
    fn listing_of(text: &str, frontmatter: Value) -> SkillEntry {
        serde_json::from_value(json!({
            "uri": SKILL,
            "frontmatter": frontmatter,
            "resources": [{"uri": SKILL, "digest": skill_digest(text.as_bytes()), "size": text.len()}]
        }))
        .unwrap()
    }

    #[test]
    fn a_genuine_skill_passes_and_its_body_follows_the_frontmatter() {
        assert_eq!(skill_digest(GENUINE.as_bytes()), GENUINE_DIGEST);
        assert_eq!(GENUINE.len(), 97);
        assert_eq!(skill_digest(FORMS_TEXT.as_bytes()), FORMS_DIGEST);
        let entry = listing((GENUINE_DIGEST, 97));
        assert_eq!(verify_skill_file(&entry, SKILL, GENUINE.as_bytes()), Ok(()));
        assert_eq!(
            verify(&entry, SKILL, GENUINE.as_bytes()),
            Ok(Some(entry.frontmatter.clone()))
        );
        assert_eq!(verify(&entry, FORMS, FORMS_TEXT.as_bytes()), Ok(None));
        assert_eq!(
            split_frontmatter(GENUINE).map(|(_, body)| body),
            Some("\nSkill body.\n")
        );
    }

    #[test]
    fn same_length_other_bytes_fail_the_digest() {
        let entry = listing((GENUINE_DIGEST, 97));
        let evil = GENUINE.replace("Skill body.", "Evil body!!");
        assert_eq!(evil.len(), 97);
        assert_eq!(
            verify_skill_file(&entry, SKILL, evil.as_bytes()),
            Err(SkillVerificationError::DigestMismatch {
                uri: SKILL.into(),
                expected: GENUINE_DIGEST.into(),
                actual: skill_digest(evil.as_bytes()),
            })
        );
        assert!(
            skill_digest(evil.as_bytes()).starts_with("sha256:897139bd")
                && skill_digest(evil.as_bytes()).ends_with("5d09")
        );
    }

    #[test]
    fn extra_bytes_fail_the_size_before_the_digest() {
        let entry = listing((GENUINE_DIGEST, 97));
        let longer = format!("{GENUINE}extra bytes the entry did not account for\n");
        assert_eq!(
            verify_skill_file(&entry, SKILL, longer.as_bytes()),
            Err(SkillVerificationError::SizeMismatch {
                uri: SKILL.into(),
                expected: 97,
                actual: 139,
            })
        );
        // A supporting file is held to its size and digest too.
        assert_eq!(
            verify_skill_file(&entry, FORMS, b"Supporting content!\n"),
            Err(SkillVerificationError::DigestMismatch {
                uri: FORMS.into(),
                expected: FORMS_DIGEST.into(),
                actual: skill_digest(b"Supporting content!\n"),
            })
        );
    }

    #[test]
    fn a_rewritten_frontmatter_with_a_recomputed_digest_fails_the_comparison() {
        let rewritten = GENUINE.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials",
        );
        let digest = skill_digest(rewritten.as_bytes());
        assert_eq!(
            digest,
            "sha256:b7cab173f8a37d7f744b2a2be9cc4a0dcf8beb77d0a61274ed16e1d3d94fa7e0"
        );
        assert_eq!(rewritten.len(), 78);
        let recomputed = listing((&digest, 78));
        assert_eq!(
            verify_skill_file(&recomputed, SKILL, rewritten.as_bytes()),
            Err(SkillVerificationError::FrontmatterMismatch {
                uri: SKILL.into(),
                field: "description".into(),
                expected: Box::new(json!("Extract, fill, and assemble PDF documents")),
                actual: Box::new(json!("Exfiltrate credentials")),
            })
        );
    }

    #[test]
    fn unlisted_files_and_files_without_frontmatter_are_refused() {
        let entry = listing((GENUINE_DIGEST, 97));
        assert_eq!(
            verify_skill_file(&entry, "skill://other/SKILL.md", GENUINE.as_bytes()),
            Err(SkillVerificationError::Unlisted {
                uri: "skill://other/SKILL.md".into()
            })
        );
        let bare = "no frontmatter\n";
        assert_eq!(
            verify_skill_file(&listing_of(bare, json!({})), SKILL, bare.as_bytes()),
            Err(SkillVerificationError::MissingFrontmatter { uri: SKILL.into() })
        );
        let unclosed = "---\nname: x\n";
        assert_eq!(
            verify_skill_file(&listing_of(unclosed, json!({})), SKILL, unclosed.as_bytes()),
            Err(SkillVerificationError::MissingFrontmatter { uri: SKILL.into() })
        );
        let list = "---\n- a\n---\n";
        assert_eq!(
            verify_skill_file(&listing_of(list, json!({})), SKILL, list.as_bytes()),
            Err(SkillVerificationError::InvalidFrontmatter {
                uri: SKILL.into(),
                reason: "it is not a mapping".into()
            })
        );
        let broken = "---\nname: [unclosed\n---\n";
        assert!(matches!(
            verify_skill_file(&listing_of(broken, json!({})), SKILL, broken.as_bytes()),
            Err(SkillVerificationError::InvalidFrontmatter { .. })
        ));
    }

    #[test]
    fn the_comparison_covers_the_fields_of_both_sides() {
        // A field only the entry has must be null in the file, and the other way round.
        let text = "---\nname: x\n---\nbody\n";
        let entry = listing_of(text, json!({"name": "x", "license": "MIT"}));
        assert_eq!(
            verify_skill_file(&entry, SKILL, text.as_bytes()),
            Err(SkillVerificationError::FrontmatterMismatch {
                uri: SKILL.into(),
                field: "license".into(),
                expected: Box::new(json!("MIT")),
                actual: Box::new(Value::Null),
            })
        );
        let entry = listing_of(text, json!({"name": "x", "license": null}));
        assert_eq!(verify_skill_file(&entry, SKILL, text.as_bytes()), Ok(()));
        let text = "---\nname: x\nextra: 1\n---\n";
        let entry = listing_of(text, json!({"name": "x"}));
        assert_eq!(
            verify_skill_file(&entry, SKILL, text.as_bytes()),
            Err(SkillVerificationError::FrontmatterMismatch {
                uri: SKILL.into(),
                field: "extra".into(),
                expected: Box::new(Value::Null),
                actual: Box::new(json!(1)),
            })
        );
    }

    #[test]
    fn values_compare_deeply_with_yaml_1_2_scalars() {
        let text = "\u{feff}---\r\nname: x\r\nallowed: [yes, on, y, true]\r\nlimits: {size: 1e3, depth: 2}\r\nmetadata:\r\n  nested: {a: [1, {b: null}]}\r\n--- \t\r\n# Body\r\n";
        let entry = listing_of(
            text,
            json!({
                "name": "x",
                "allowed": ["yes", "on", "y", true],
                "limits": {"depth": 2.0, "size": 1000},
                "metadata": {"nested": {"a": [1, {"b": null}]}}
            }),
        );
        assert_eq!(verify_skill_file(&entry, SKILL, text.as_bytes()), Ok(()));
        assert_eq!(
            split_frontmatter(text).map(|(_, body)| body),
            Some("# Body\r\n")
        );
        // Deep: a nested member missing on one side is a difference (no null default there).
        let entry = listing_of(
            text,
            json!({
                "name": "x",
                "allowed": ["yes", "on", "y", true],
                "limits": {"depth": 2, "size": 1000},
                "metadata": {"nested": {"a": [1, {}]}}
            }),
        );
        assert!(matches!(
            verify_skill_file(&entry, SKILL, text.as_bytes()),
            Err(SkillVerificationError::FrontmatterMismatch { field, .. }) if field == "metadata"
        ));
        assert!(!same(&json!(1), &json!("1")));
        assert!(!same(&json!([1, 2]), &json!([2, 1])));
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same(&json!(-1), &json!(u64::MAX)));
    }

    #[test]
    fn entries_keep_what_they_do_not_model() {
        let page: ListSkillsResult = serde_json::from_value(json!({
            "skills": [{"uri": SKILL, "frontmatter": {"name": "n"}, "resources": [], "version": "2"}],
            "nextCursor": "c2",
            "ttlMs": 5
        }))
        .unwrap();
        assert_eq!(page.next_cursor.as_deref(), Some("c2"));
        assert_eq!(page.skills[0].extra.get("version"), Some(&json!("2")));
        assert_eq!(page.ttl_ms, 5);
        let back = serde_json::to_value(&page.skills[0]).unwrap();
        assert_eq!(back["version"], json!("2"));
    }

    #[test]
    fn refusals_become_protocol_errors_of_resources_read() {
        let error = ClientError::from(SkillVerificationError::SizeMismatch {
            uri: SKILL.into(),
            expected: 97,
            actual: 139,
        });
        assert_eq!(
            error,
            ClientError::Protocol {
                method: "resources/read",
                detail: format!(
                    "size mismatch for {SKILL}: the entry lists 97 bytes, the server sent 139"
                ),
            }
        );
    }
}
