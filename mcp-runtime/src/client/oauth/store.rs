//! Where the client keeps what it obtained for each server: its registration with the
//! authorization server, its tokens, its DPoP key. [`TokenStore`] is the trait;
//! [`MemoryTokenStore`] forgets everything when the process ends, [`FileTokenStore`] keeps it
//! in a JSON file only its owner can read.

use crate::rt::{SystemTime, UNIX_EPOCH};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::{AuthError, Secret};

/// What the client keeps for one server (one protected resource), all of it bound to the one
/// authorization server that issued it: when the server names another authorization server,
/// the client drops the record and starts over (it never presents one authorization server's
/// credentials to another).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredAuthorization {
    /// The issuer identifier of the authorization server.
    pub issuer: String,
    /// The client's registration with that authorization server.
    pub client: RegisteredClient,
    /// The tokens, once the client has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// The private key the tokens are bound to (DPoP, RFC 9449), as base64url PKCS#8 DER.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<Secret>,
}

/// How the client is known to an authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// The client identifier (a URL for a client ID metadata document).
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// How the client authenticates at the token endpoint, when the registration says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
}

/// The tokens of one authorization.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// The access token.
    pub access_token: Secret,
    /// `Bearer` or `DPoP`.
    pub token_type: String,
    /// The refresh token, when the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch, when the authorization
    /// server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted (or asked for, when the server did not say), space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl Tokens {
    /// Whether the access token expires within `margin_secs` seconds from now.
    pub fn expires_within(&self, margin_secs: u64) -> bool {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.expires_at
            .is_some_and(|at| at <= now.saturating_add(margin_secs))
    }
}

/// Where the client keeps a [`StoredAuthorization`] per server, keyed by the server's resource
/// identifier (its URL). Implement it to keep tokens in the platform's keychain or an
/// encrypted database.
pub trait TokenStore: Send + Sync + 'static {
    /// The record for `resource`, if there is one.
    fn load<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuthorization>, AuthError>>;

    /// Keeps `record` for `resource`, replacing what was there.
    fn save<'a>(
        &'a self,
        resource: &'a str,
        record: &'a StoredAuthorization,
    ) -> BoxFuture<'a, Result<(), AuthError>>;

    /// Forgets the record for `resource`.
    fn remove<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<(), AuthError>>;
}

/// A [`TokenStore`] in memory: the client authorizes again in each process. The default.
#[derive(Clone, Debug, Default)]
pub struct MemoryTokenStore {
    records: Arc<Mutex<HashMap<String, StoredAuthorization>>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuthorization>, AuthError>> {
        let record = self.records.lock().get(resource).cloned();
        Box::pin(async move { Ok(record) })
    }

    fn save<'a>(
        &'a self,
        resource: &'a str,
        record: &'a StoredAuthorization,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        self.records
            .lock()
            .insert(resource.to_owned(), record.clone());
        Box::pin(async { Ok(()) })
    }

    fn remove<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        self.records.lock().remove(resource);
        Box::pin(async { Ok(()) })
    }
}

/// A [`TokenStore`] in a JSON file, written with mode `0600` on Unix (only its owner may read
/// it): the client stays authorized across runs.
///
/// Each save writes a temporary file next to it and renames it over the old one, so a crash
/// never leaves half a file. Several processes sharing one file each keep their last write.
///
/// ```no_run
/// use mcp_runtime::client::oauth::FileTokenStore;
///
/// let store = FileTokenStore::new(dirs_home().join(".config/my-agent/mcp-tokens.json"));
/// # fn dirs_home() -> std::path::PathBuf { std::path::PathBuf::from("/home/me") }
/// # drop(store);
/// ```
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    /// Serialises the read-modify-write of the file within the process.
    lock: tokio::sync::Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path` (created, with its directory, on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            lock: tokio::sync::Mutex::new(()),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn read_all(&self) -> Result<HashMap<String, StoredAuthorization>, AuthError> {
        match tokio::fs::read(&self.path).await {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| AuthError::Store {
                detail: format!(
                    "{} is not a token file ({error}); delete it to start over",
                    self.path.display()
                ),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(error) => Err(self.failed("read", &error)),
        }
    }

    async fn write_all(
        &self,
        records: &HashMap<String, StoredAuthorization>,
    ) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec_pretty(records).map_err(|error| AuthError::Store {
            detail: error.to_string(),
        })?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|error| self.failed("create the directory of", &error))?;
        }
        let temporary = temporary_path(&self.path);
        let written = tokio::task::spawn_blocking({
            let temporary = temporary.clone();
            move || write_private(&temporary, &bytes)
        })
        .await
        .unwrap_or_else(|error| Err(std::io::Error::other(error)));
        written.map_err(|error| self.failed("write", &error))?;
        tokio::fs::rename(&temporary, &self.path)
            .await
            .map_err(|error| self.failed("replace", &error))
    }

    fn failed(&self, what: &str, error: &std::io::Error) -> AuthError {
        AuthError::Store {
            detail: format!("cannot {what} {}: {error}", self.path.display()),
        }
    }
}

/// The temporary file a save of `path` writes before renaming it over `path`: next to it, named
/// with 256 random bits, so that no two saves write the same one, whether they are of this
/// process (two stores of one file) or of others (on this host or another sharing the folder).
fn temporary_path(path: &Path) -> PathBuf {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", super::random_token()));
    PathBuf::from(temporary)
}

/// Writes `bytes` to a new file at `path` that only its owner may read and write.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    // A file left by an earlier run keeps its mode through `open`: set it again.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}

impl TokenStore for FileTokenStore {
    fn load<'a>(
        &'a self,
        resource: &'a str,
    ) -> BoxFuture<'a, Result<Option<StoredAuthorization>, AuthError>> {
        Box::pin(async move {
            let _guard = self.lock.lock().await;
            Ok(self.read_all().await?.remove(resource))
        })
    }

    fn save<'a>(
        &'a self,
        resource: &'a str,
        record: &'a StoredAuthorization,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(async move {
            let _guard = self.lock.lock().await;
            let mut records = self.read_all().await?;
            records.insert(resource.to_owned(), record.clone());
            self.write_all(&records).await
        })
    }

    fn remove<'a>(&'a self, resource: &'a str) -> BoxFuture<'a, Result<(), AuthError>> {
        Box::pin(async move {
            let _guard = self.lock.lock().await;
            let mut records = self.read_all().await?;
            if records.remove(resource).is_some() {
                self.write_all(&records).await?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn two_stores_of_one_file_saving_at_once_each_write_a_temporary_file_of_their_own() {
        let dir =
            std::env::temp_dir().join(format!("mcp-token-store-{}", super::super::random_token()));
        let path = dir.join("tokens.json");
        assert_ne!(temporary_path(&path), temporary_path(&path));
        let stores = [
            Arc::new(FileTokenStore::new(&path)),
            Arc::new(FileTokenStore::new(&path)),
        ];
        let record = |n: usize| StoredAuthorization {
            issuer: format!("https://idp-{n}.example.com"),
            client: RegisteredClient {
                client_id: format!("client-{n}"),
                client_secret: None,
                token_endpoint_auth_method: None,
            },
            tokens: None,
            dpop_key: None,
        };
        // Two clients of one agent, each with its own store of the same file, saving at once.
        let saves: Vec<_> = (0..64)
            .map(|n| {
                let store = stores[n % 2].clone();
                tokio::spawn(async move {
                    store
                        .save(&format!("https://mcp-{n}.example.com/mcp"), &record(n))
                        .await
                })
            })
            .collect();
        for save in saves {
            assert_eq!(save.await.unwrap(), Ok(()));
        }
        // The file is whole, and no temporary file is left.
        let records = stores[0].read_all().await.unwrap();
        assert!(!records.is_empty());
        for (resource, stored) in &records {
            let n: usize = resource
                .trim_start_matches("https://mcp-")
                .trim_end_matches(".example.com/mcp")
                .parse()
                .unwrap();
            assert_eq!(stored, &record(n));
        }
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["tokens.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
