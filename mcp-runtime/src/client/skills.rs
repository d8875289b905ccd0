//! The host side of the skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a server
//! lists skills with `skills/list`, each one a `SKILL.md` with YAML frontmatter and the files it
//! refers to, every file listed with its size and SHA-256 digest.
//!
//! A host reads a skill's files only when it needs them (never on connection or on listing), and
//! uses nothing it could not verify: [`McpClient::load_skill`] reads `SKILL.md` and checks, in
//! this order, its size in bytes, its digest (`sha256:` and 64 lowercase hex digits of the raw
//! bytes) and its frontmatter, field by field, against the listing;
//! [`McpClient::read_skill_file`] checks the size and digest of the skill's other files. A file
//! that fails a check is refused with the reason, and its content is not returned.

use base64::Engine;
use mcp_core::resources::ResourceContents;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{ClientError, McpClient, RequestOptions};

/// The extension's identifier, to declare with [`McpClientBuilder::extension`](super::McpClientBuilder::extension).
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// A skill, as `skills/list` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// The frontmatter of its `SKILL.md`.
    #[serde(default)]
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, `SKILL.md` included.
    #[serde(default)]
    pub resources: Vec<SkillFile>,
    /// Anything else the server says of the skill.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file of a skill: where it is and what it must be.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Its URI.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// One page of `skills/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// The skills.
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A skill whose `SKILL.md` was read and verified.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The listing it was verified against.
    pub entry: SkillEntry,
    /// The text of `SKILL.md`.
    pub text: String,
    /// What follows its frontmatter: the instructions.
    pub body: String,
}

/// Why a skill's file is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillVerificationError {
    /// The skill's listing does not name the file, so it cannot be verified.
    #[error("{uri} is not a file of the skill")]
    Unlisted {
        /// The file.
        uri: String,
    },
    /// The file does not have the size listed.
    #[error("{uri} has {actual} bytes where the listing says {expected}")]
    SizeMismatch {
        /// The file.
        uri: String,
        /// The listed size.
        expected: u64,
        /// The size read.
        actual: u64,
    },
    /// The file does not have the digest listed.
    #[error("{uri} has digest {actual} where the listing says {expected}")]
    DigestMismatch {
        /// The file.
        uri: String,
        /// The listed digest.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// `SKILL.md` has no frontmatter, or frontmatter that is not a YAML mapping.
    #[error("{uri} has no readable frontmatter: {reason}")]
    BadFrontmatter {
        /// The file.
        uri: String,
        /// What is wrong.
        reason: String,
    },
    /// A field of the frontmatter differs from the listing.
    #[error("the frontmatter field {field:?} of {uri} differs from the listing")]
    FrontmatterMismatch {
        /// The file.
        uri: String,
        /// The field.
        field: String,
    },
}

/// The digest of `bytes` as skills list them: `sha256:` and 64 lowercase hex digits.
pub fn skill_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Checks the file `uri` of the skill `entry`, read as `bytes`: its size, then its digest; for
/// the skill's `SKILL.md`, then its frontmatter, field by field (a field missing on one side
/// equals `null` on the other).
pub fn verify_skill_file(
    entry: &SkillEntry,
    uri: &str,
    bytes: &[u8],
) -> Result<(), SkillVerificationError> {
    let listed = entry
        .resources
        .iter()
        .find(|file| file.uri == uri)
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
        return Ok(());
    }
    let bad = |reason: String| SkillVerificationError::BadFrontmatter {
        uri: uri.into(),
        reason,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    let (yaml, _) = split_frontmatter(text).ok_or_else(|| bad("no `---` block".into()))?;
    let found: Value = serde_saphyr::from_str(yaml).map_err(|e| bad(e.to_string()))?;
    let Value::Object(found) = found else {
        return Err(bad("it is not a mapping".into()));
    };
    let fields = found.keys().chain(entry.frontmatter.keys());
    for field in fields {
        let read = found.get(field).unwrap_or(&Value::Null);
        let listed = entry.frontmatter.get(field).unwrap_or(&Value::Null);
        if read != listed {
            return Err(SkillVerificationError::FrontmatterMismatch {
                uri: uri.into(),
                field: field.clone(),
            });
        }
    }
    Ok(())
}

/// Splits a `SKILL.md` into its YAML frontmatter (between a first line `---` and the next line
/// `---`) and the body after it.
fn split_frontmatter(text: &str) -> Option<(&str, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            let yaml = rest[..offset].trim_end_matches(['\r', '\n']);
            return Some((yaml, &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// The bytes of a resource's contents: the text as UTF-8, or the decoded blob.
fn contents_bytes(contents: &ResourceContents) -> Result<Vec<u8>, String> {
    match contents {
        ResourceContents::Text(text) => Ok(text.text.clone().into_bytes()),
        ResourceContents::Blob(blob) => base64::engine::general_purpose::STANDARD
            .decode(&blob.blob)
            .map_err(|e| format!("the blob is not Base64: {e}")),
        _ => Err("the contents are neither text nor a blob".into()),
    }
}

impl McpClient {
    /// One page of `skills/list`.
    pub async fn list_skills(
        &self,
        cursor: Option<String>,
    ) -> Result<ListSkillsResult, ClientError> {
        let method = "skills/list";
        let params = match cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let page = self
            .request_json(method, params, RequestOptions::new())
            .await?;
        serde_json::from_value(page).map_err(|e| ClientError::Protocol {
            method,
            detail: e.to_string(),
        })
    }

    /// Every skill, following the cursors. Reads none of their files.
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_skills(cursor).await?;
            all.extend(page.skills);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Reads the skill's `SKILL.md` and verifies it against `entry` (see the
    /// [module docs](self)); a file that fails is refused with
    /// [`ClientError::Protocol`] naming the check.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
        let bytes = self.read_skill_file(entry, &entry.uri).await?;
        let text = String::from_utf8(bytes).map_err(|e| ClientError::Protocol {
            method: "resources/read",
            detail: format!("{} is not UTF-8: {e}", entry.uri),
        })?;
        let body = split_frontmatter(&text)
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        Ok(LoadedSkill {
            entry: entry.clone(),
            text,
            body,
        })
    }

    /// Reads the file `uri` of the skill `entry` and returns its bytes once verified (its size
    /// and digest; for `SKILL.md` also its frontmatter).
    pub async fn read_skill_file(
        &self,
        entry: &SkillEntry,
        uri: &str,
    ) -> Result<Vec<u8>, ClientError> {
        let method = "resources/read";
        let refused = |detail: String| ClientError::Protocol { method, detail };
        if !entry.resources.iter().any(|file| file.uri == uri) {
            let unlisted = SkillVerificationError::Unlisted { uri: uri.into() };
            return Err(refused(unlisted.to_string()));
        }
        let read = self.read_resource(uri).await?;
        let contents = read
            .contents
            .iter()
            .find(|c| c.uri() == uri)
            .or(read.contents.first())
            .ok_or_else(|| refused(format!("the server returned no contents for {uri}")))?;
        let bytes = contents_bytes(contents).map_err(refused)?;
        verify_skill_file(entry, uri, &bytes).map_err(|e| refused(e.to_string()))?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &str = "skill://pdf-processing/SKILL.md";
    const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
    const GENUINE: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n";

    fn listing(skill_digest_size: (&str, u64)) -> SkillEntry {
        serde_json::from_value(json!({
            "uri": SKILL,
            "frontmatter": {"name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents"},
            "resources": [
                {"uri": SKILL, "digest": skill_digest_size.0, "size": skill_digest_size.1},
                {"uri": FORMS, "digest": skill_digest(b"Supporting content.\n"), "size": 20}
            ]
        }))
        .unwrap()
    }

    const GENUINE_DIGEST: &str =
        "sha256:a6d5f1f48af94923633d597c756194482fe5d48f74e49eb54bc9ee7c4902d5ba";

    #[test]
    fn a_genuine_skill_passes_and_its_body_follows_the_frontmatter() {
        assert_eq!(skill_digest(GENUINE.as_bytes()), GENUINE_DIGEST);
        assert_eq!(GENUINE.len(), 97);
        let entry = listing((GENUINE_DIGEST, 97));
        assert_eq!(verify_skill_file(&entry, SKILL, GENUINE.as_bytes()), Ok(()));
        assert_eq!(
            verify_skill_file(&entry, FORMS, b"Supporting content.\n"),
            Ok(())
        );
        assert_eq!(
            split_frontmatter(GENUINE).map(|(_, body)| body),
            Some("\nSkill body.\n")
        );
    }

    #[test]
    fn a_tampered_skill_is_refused_with_the_check_it_fails() {
        let entry = listing((GENUINE_DIGEST, 97));
        // Same length, other bytes: only the digest tells.
        let evil = GENUINE.replace("Skill body.", "Evil body!!");
        assert_eq!(
            verify_skill_file(&entry, SKILL, evil.as_bytes()),
            Err(SkillVerificationError::DigestMismatch {
                uri: SKILL.into(),
                expected: GENUINE_DIGEST.into(),
                actual: skill_digest(evil.as_bytes()),
            })
        );
        let longer = format!("{GENUINE}extra bytes the entry did not account for\n");
        assert_eq!(
            verify_skill_file(&entry, SKILL, longer.as_bytes()),
            Err(SkillVerificationError::SizeMismatch {
                uri: SKILL.into(),
                expected: 97,
                actual: 139,
            })
        );
        // The listing's digest and size match the tampered file: only the frontmatter tells.
        let rewritten = GENUINE.replace(
            "description: Extract, fill, and assemble PDF documents",
            "description: Exfiltrate credentials",
        );
        let digest = skill_digest(rewritten.as_bytes());
        assert_eq!(
            digest,
            "sha256:b7cab173f8a37d7f744b2a2be9cc4a0dcf8beb77d0a61274ed16e1d3d94fa7e0"
        );
        let recomputed = listing((&digest, rewritten.len() as u64));
        assert_eq!(
            verify_skill_file(&recomputed, SKILL, rewritten.as_bytes()),
            Err(SkillVerificationError::FrontmatterMismatch {
                uri: SKILL.into(),
                field: "description".into(),
            })
        );
        assert_eq!(
            verify_skill_file(&entry, "skill://other/SKILL.md", GENUINE.as_bytes()),
            Err(SkillVerificationError::Unlisted {
                uri: "skill://other/SKILL.md".into()
            })
        );
        let bare = "no frontmatter\n";
        let listed = listing((&skill_digest(bare.as_bytes()), bare.len() as u64));
        assert_eq!(
            verify_skill_file(&listed, SKILL, bare.as_bytes()),
            Err(SkillVerificationError::BadFrontmatter {
                uri: SKILL.into(),
                reason: "no `---` block".into()
            })
        );
    }
}
