//! The options of a server that runs as one of several instances behind a load balancer, shared
//! by `notes-server` and `conformance-server`.

use mcp_runtime::request_state::RequestStateCodec;
use mcp_runtime::server::{McpServerBuilder, TaskOptions};
use mcp_runtime::store::{RedisOptions, RedisStore};
use mcp_runtime::transport::http::HttpOptions;

/// How an instance shares its state with the others. Its `Debug` shows neither the Redis URL
/// (which may carry a password) nor the key.
#[derive(clap::Args, Default)]
pub struct InstanceArgs {
    /// Keep sessions, SSE events and tasks in the Redis at URL (redis://HOST:PORT/DB, with a
    /// password as redis://:PASSWORD@HOST; rediss:// for TLS), so that several instances behind
    /// a load balancer serve one deployment.
    #[arg(
        long,
        value_name = "URL",
        env = "MCP_REDIS_URL",
        hide_env_values = true
    )]
    pub redis: Option<String>,
    /// The key that seals `requestState` (base64 of at least 32 random bytes), the same on every
    /// instance, as `RequestStateCodec::from_base64` reads it; required with --redis.
    #[arg(
        long,
        value_name = "KEY",
        env = "MCP_REQUEST_STATE_KEY",
        hide_env_values = true
    )]
    pub request_state_key: Option<String>,
    /// The certificate (PEM file) of the authority that signed a `rediss://` server's
    /// certificate, when it is not one the system trusts.
    #[arg(long, value_name = "FILE", env = "MCP_REDIS_CA")]
    pub redis_ca: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for InstanceArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = |value: bool| if value { "(set)" } else { "(none)" };
        f.debug_struct("InstanceArgs")
            .field("redis", &set(self.redis.is_some()))
            .field("request_state_key", &set(self.request_state_key.is_some()))
            .field("redis_ca", &self.redis_ca)
            .finish()
    }
}

impl InstanceArgs {
    /// The server and its HTTP options, set up to share their state as the arguments say
    /// (`tasks`: the server's own task options, if it sets any; with Redis their store becomes
    /// Redis's). Fails, saying what to do, when Redis cannot be reached or the key is missing or
    /// too short; the messages never show the password or the key.
    pub async fn apply(
        self,
        mut builder: McpServerBuilder,
        mut options: HttpOptions,
        tasks: Option<TaskOptions>,
    ) -> anyhow::Result<(McpServerBuilder, HttpOptions)> {
        if let Some(key) = &self.request_state_key {
            let codec = RequestStateCodec::from_base64(key).map_err(|e| {
                anyhow::anyhow!(
                    "--request-state-key (or MCP_REQUEST_STATE_KEY) cannot be used: {e}"
                )
            })?;
            builder = builder.request_state_codec(codec);
        }
        let Some(url) = self.redis else {
            if let Some(tasks) = tasks {
                builder = builder.tasks(tasks);
            }
            return Ok((builder, options));
        };
        if self.request_state_key.is_none() {
            anyhow::bail!(
                "--redis needs --request-state-key (or MCP_REQUEST_STATE_KEY): every instance must \
                 seal requestState with the same key; make one with `head -c 32 /dev/urandom | base64`"
            );
        }
        let mut redis_options = RedisOptions::new();
        if let Some(path) = &self.redis_ca {
            let pem = std::fs::read(path).map_err(|e| {
                anyhow::anyhow!(
                    "cannot read the Redis CA certificate {}: {e}",
                    path.display()
                )
            })?;
            redis_options = redis_options.tls_root_certificate(pem);
        }
        let redis = RedisStore::connect_with(&url, redis_options).await?;
        let tasks = tasks.unwrap_or_default();
        builder = builder.tasks(tasks.store(redis.task_store()));
        options = options.redis(&redis);
        Ok((builder, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_neither_the_password_nor_the_key() {
        let args = InstanceArgs {
            redis: Some("redis://:hunter2@cache:6379/".into()),
            request_state_key: Some("c2VjcmV0LWtleS1vZi10aGUtZGVwbG95bWVudC0wMQ==".into()),
            redis_ca: None,
        };
        assert_eq!(
            format!("{args:?}"),
            r#"InstanceArgs { redis: "(set)", request_state_key: "(set)", redis_ca: None }"#
        );
    }

    #[tokio::test]
    async fn a_key_that_cannot_be_used_is_refused_saying_why_without_showing_it() {
        let args = InstanceArgs {
            request_state_key: Some("c2hvcnQta2V5".into()),
            ..InstanceArgs::default()
        };
        let builder = mcp_runtime::server::McpServer::from_module(
            mcp_runtime::server_info!(),
            module_path!(),
        );
        let error = args
            .apply(builder, HttpOptions::default(), None)
            .await
            .err()
            .expect("a 9-byte key is refused");
        assert_eq!(
            error.to_string(),
            "--request-state-key (or MCP_REQUEST_STATE_KEY) cannot be used: the requestState key \
             holds 9 bytes, fewer than 32: a requestState key is the base64 of at least 32 random \
             bytes, the same on every instance (make one with `head -c 32 /dev/urandom | base64`)"
        );
    }
}
