//! Skills (SEP-2640) end to end: the SDK's server serves a skills folder, embedded with
//! `include_skills!` or read with `skills_dir`, and `McpClient`'s skills host lists the skills,
//! loads one (its `SKILL.md` checked against the listed size, digest and frontmatter) and reads
//! its other files, over HTTP on both eras. Bad skills fail the build with an error naming the
//! file and the field, and a skill added at run time is announced.

use mcp_runtime::client::McpClient;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::protocol::messages::ServerNotification;
use mcp_runtime::protocol::skills::{SKILLS_EXTENSION, skill_digest};
use mcp_runtime::server::BuildError;
use mcp_runtime::skill::{Skill, SkillError};
use mcp_runtime::transport::http::HttpOptions;
use serde_json::json;
use tests::http::TestHttpServer;

/// The notes server's skill, as the files on disk hold it.
const SKILL_MD: &str = include_str!("../../../examples/skills/taking-notes/SKILL.md");
const EXAMPLES_MD: &str =
    include_str!("../../../examples/skills/taking-notes/references/EXAMPLES.md");

fn server() -> McpServer {
    McpServer::builder(server_info!())
        .skills(include_skills!("../../../examples/skills"))
        .build()
        .unwrap()
}

async fn client(url: &str, version: ProtocolVersion) -> McpClient {
    McpClient::builder(server_info!())
        .protocol_version(version)
        .extension(SKILLS_EXTENSION, Default::default())
        .connect_http(url)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_host_loads_a_skill_the_server_embeds_on_both_eras() {
    let http = TestHttpServer::start(server(), HttpOptions::default()).await;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = client(&http.url, version).await;
        let skills = client.list_all_skills().await.unwrap();
        assert_eq!(skills.len(), 1, "{version}");
        let entry = &skills[0];
        assert_eq!(entry.uri, "skill://taking-notes/SKILL.md");
        assert_eq!(entry.frontmatter["name"], "taking-notes");
        assert!(
            entry.frontmatter["description"]
                .as_str()
                .unwrap()
                .starts_with("Keep the user's notebook tidy")
        );
        let files: Vec<_> = entry
            .resources
            .iter()
            .map(|f| (f.uri.as_str(), f.size, f.digest.clone()))
            .collect();
        assert_eq!(
            files,
            [
                (
                    "skill://taking-notes/SKILL.md",
                    SKILL_MD.len() as u64,
                    skill_digest(SKILL_MD.as_bytes())
                ),
                (
                    "skill://taking-notes/references/EXAMPLES.md",
                    EXAMPLES_MD.len() as u64,
                    skill_digest(EXAMPLES_MD.as_bytes())
                ),
            ]
        );
        let skill = client.load_skill(entry).await.unwrap();
        assert_eq!(skill.text, SKILL_MD);
        assert!(skill.body.starts_with("\n# Taking notes well\n"));
        let examples = client
            .read_skill_file(entry, "skill://taking-notes/references/EXAMPLES.md")
            .await
            .unwrap();
        assert_eq!(examples, EXAMPLES_MD.as_bytes());
        assert_eq!(
            client
                .get_skill("skill://taking-notes/SKILL.md")
                .await
                .unwrap(),
            *entry
        );
        let unknown = client
            .get_skill("skill://nothing/SKILL.md")
            .await
            .unwrap_err();
        assert_eq!(unknown.server_error().unwrap().code.0, -32602);
        // The folder, then its sub-folder.
        let root = client
            .read_directory("skill://taking-notes", None)
            .await
            .unwrap();
        let children: Vec<_> = root
            .resources
            .iter()
            .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
            .collect();
        assert_eq!(
            children,
            [
                ("skill://taking-notes/SKILL.md", Some("text/markdown")),
                ("skill://taking-notes/references", Some("inode/directory")),
            ]
        );
        let references = client
            .read_directory("skill://taking-notes/references", None)
            .await
            .unwrap();
        assert_eq!(references.resources.len(), 1);
        assert_eq!(references.resources[0].size, Some(EXAMPLES_MD.len() as u64));
        let not_a_folder = client
            .read_directory("skill://taking-notes/SKILL.md", None)
            .await
            .unwrap_err();
        assert_eq!(not_a_folder.server_error().unwrap().code.0, -32602);
        // The skill's files are resources, SKILL.md named and described by its frontmatter.
        let resources = client.list_all_resources().await.unwrap();
        let skill_md = resources
            .iter()
            .find(|r| r.uri == "skill://taking-notes/SKILL.md")
            .unwrap();
        assert_eq!(skill_md.name, "taking-notes");
        assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(
            skill_md.description.as_deref(),
            entry.frontmatter["description"].as_str()
        );
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn the_server_declares_the_extension_with_directory_read() {
    let capabilities = server().capabilities();
    let extensions = serde_json::to_value(capabilities.extensions.unwrap()).unwrap();
    assert_eq!(extensions[SKILLS_EXTENSION], json!({"directoryRead": true}));
    assert!(capabilities.resources.is_some());
    let plain = McpServer::builder(server_info!()).build().unwrap();
    assert!(plain.capabilities().extensions.is_none());
}

/// A skills folder in a temporary directory, removed when dropped.
struct Folder(std::path::PathBuf);

impl Folder {
    fn with(files: &[(&str, &str)]) -> Folder {
        let root = std::env::temp_dir().join(format!(
            "mcp-skills-{}-{}",
            std::process::id(),
            files.len() * 7919 + files.iter().map(|(p, t)| p.len() + t.len()).sum::<usize>()
        ));
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Folder(root)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_bad_skill_fails_the_build_naming_the_file_and_the_field() {
    let folder = Folder::with(&[(
        "pdf/SKILL.md",
        "---\nname: pdf-tools\ndescription: PDFs\n---\nBody.\n",
    )]);
    let error = McpServer::builder(server_info!())
        .skills_dir(&folder.0)
        .build()
        .unwrap_err();
    let file = format!("{}/pdf/SKILL.md", folder.0.display());
    assert_eq!(
        error,
        BuildError::Skill(SkillError::Field {
            file: file.clone(),
            field: "name".into(),
            problem: "is \"pdf-tools\", but must be the folder's name, \"pdf\"".into(),
        })
    );
    assert_eq!(
        error.to_string(),
        format!("{file}: `name` is \"pdf-tools\", but must be the folder's name, \"pdf\"")
    );
    let missing = McpServer::builder(server_info!())
        .skills_dir(folder.0.join("nowhere"))
        .build()
        .unwrap_err();
    assert!(matches!(missing, BuildError::Skill(SkillError::Io { .. })));
}

#[tokio::test]
async fn a_skills_folder_read_at_run_time_serves_the_same_skill() {
    let from_disk = McpServer::builder(server_info!())
        .skills_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills"))
        .build()
        .unwrap();
    let client = McpClient::builder(server_info!())
        .extension(SKILLS_EXTENSION, Default::default())
        .connect_in_process(from_disk)
        .await
        .unwrap();
    let entry = client
        .get_skill("skill://taking-notes/SKILL.md")
        .await
        .unwrap();
    let embedded = McpClient::builder(server_info!())
        .extension(SKILLS_EXTENSION, Default::default())
        .connect_in_process(server())
        .await
        .unwrap()
        .get_skill("skill://taking-notes/SKILL.md")
        .await
        .unwrap();
    assert_eq!(entry, embedded);
}

#[tokio::test]
async fn a_skill_added_at_run_time_is_announced_and_listed() {
    let server = McpServer::builder(server_info!())
        .stateful()
        .resources_list_changed()
        .skills(include_skills!("../../../examples/skills"))
        .build()
        .unwrap();
    let http = TestHttpServer::start(server.clone(), HttpOptions::default()).await;
    let client = client(&http.url, ProtocolVersion::V2025_11_25).await;
    let mut notifications = client.notifications();
    // A request after the handshake goes out once the session's standalone stream is open.
    assert_eq!(client.list_all_skills().await.unwrap().len(), 1);
    let skill = Skill::new(
        "unit-conversion",
        [(
            "SKILL.md",
            &b"---\nname: unit-conversion\ndescription: Convert units\n---\nUse SI.\n"[..],
        )],
    )
    .unwrap();
    server.add_skill(skill).unwrap();
    let announced = tokio::time::timeout(std::time::Duration::from_secs(5), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(
        announced,
        ServerNotification::ResourceListChanged(_)
    ));
    let names: Vec<_> = client
        .list_all_skills()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.uri)
        .collect();
    assert_eq!(
        names,
        [
            "skill://taking-notes/SKILL.md",
            "skill://unit-conversion/SKILL.md"
        ]
    );
    let loaded = client
        .load_skill(
            &client
                .get_skill("skill://unit-conversion/SKILL.md")
                .await
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(loaded.body, "Use SI.\n");
    assert!(server.remove_skill("unit-conversion"));
    assert_eq!(client.list_all_skills().await.unwrap().len(), 1);
    assert!(
        client
            .read_resource("skill://unit-conversion/SKILL.md")
            .await
            .is_err()
    );
}
