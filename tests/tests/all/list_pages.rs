//! The pages of `*/list`: rendered once per revision and kept, they follow every change of the
//! list, differ by revision, and reach middleware layers typed. Each way of [`WAYS`].

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::prelude::*;
use mcp_runtime::protocol::messages::ServerResult;
use mcp_runtime::server::middleware::{self, McpRequest, Next};
use serde_json::{Value, json};
use tests::placeholder_tool;
use tests::ways::{Peer, WAYS, Way};

fn server(page_size: usize) -> McpServerBuilder {
    let mut builder =
        McpServer::builder(Implementation::new("pages", "1.0.0")).page_size(page_size);
    for name in ["t0", "t1", "t2"] {
        builder = builder.tool(placeholder_tool(name));
    }
    builder
}

/// The names on one page of `tools/list`, and the cursor of the next.
async fn page(peer: &mut Peer, cursor: Option<&Value>) -> (Vec<String>, Option<Value>) {
    let params = cursor.map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
    let page = peer.request("tools/list", params).await.unwrap();
    let names = page["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect();
    (names, page.get("nextCursor").cloned())
}

#[tokio::test]
async fn list_pages_follow_every_change_of_the_list() {
    for way in WAYS {
        let server = server(2).build().unwrap();
        let mut peer = Peer::open(server.clone(), way).await;
        let (first, cursor) = page(&mut peer, None).await;
        assert_eq!(first, ["t0", "t1"], "{way:?}");
        let cursor = cursor.unwrap();
        // Asked again (now from what was rendered), the same pages.
        for _ in 0..2 {
            assert_eq!(
                page(&mut peer, None).await,
                (first.clone(), Some(cursor.clone()))
            );
            assert_eq!(
                page(&mut peer, Some(&cursor)).await,
                (vec!["t2".into()], None)
            );
        }
        server.add_tool(placeholder_tool("t3")).unwrap();
        assert_eq!(
            page(&mut peer, Some(&cursor)).await,
            (vec!["t2".into(), "t3".into()], None),
            "{way:?}"
        );
        assert!(server.remove_tool("t0"));
        let (first, next) = page(&mut peer, None).await;
        assert_eq!(first, ["t1", "t2"], "{way:?}");
        assert_eq!(
            page(&mut peer, next.as_ref()).await,
            (vec!["t3".into()], None)
        );
        assert!(server.remove_tool("t3"));
        assert_eq!(
            page(&mut peer, None).await,
            (vec!["t1".into(), "t2".into()], None)
        );
    }
}

#[tokio::test]
async fn each_revision_gets_its_own_rendering_of_a_list() {
    // One server, asked alternately by a 2025-11-25 session and by 2026-07-28 requests: each
    // gets the page of its revision (caching hints are 2026-07-28's), whoever asked first.
    for (old, new) in [
        (Way::Stdio2025, Way::Stdio2026),
        (Way::Http2025, Way::Http2026),
    ] {
        let server = server(0).build().unwrap();
        let mut old = Peer::open(server.clone(), old).await;
        let mut new = Peer::open(server.clone(), new).await;
        for _ in 0..2 {
            let page = old.request("tools/list", json!({})).await.unwrap();
            assert_eq!((page.get("ttlMs"), page.get("cacheScope")), (None, None));
            assert_eq!(page["tools"].as_array().unwrap().len(), 3);
            let page = new.request("tools/list", json!({})).await.unwrap();
            assert_eq!(
                (&page["ttlMs"], &page["cacheScope"]),
                (&json!(0), &json!("private"))
            );
            assert_eq!(page["tools"].as_array().unwrap().len(), 3);
        }
    }
}

#[tokio::test]
async fn a_middleware_layer_sees_a_list_typed() {
    let typed = Arc::new(AtomicUsize::new(0));
    for way in WAYS {
        let count = typed.clone();
        let server = server(0)
            .layer(middleware::from_fn(
                move |request: McpRequest, next: Next| {
                    let count = count.clone();
                    async move {
                        let result = next.run(request).await;
                        if let Ok(ServerResult::ListTools(list)) = &result {
                            count.fetch_add(list.tools.len(), Ordering::Relaxed);
                        }
                        result
                    }
                },
            ))
            .build()
            .unwrap();
        let mut peer = Peer::open(server, way).await;
        for _ in 0..2 {
            let (names, _) = page(&mut peer, None).await;
            assert_eq!(names, ["t0", "t1", "t2"], "{way:?}");
        }
    }
    assert_eq!(typed.load(Ordering::Relaxed), 4 * 2 * 3);
}
