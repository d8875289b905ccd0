//! The `skills/*` requests of the skills extension (SEP-2640): `skills/list`, `skills/get` and
//! `resources/directory/read`, answered from the skills in the registry. What a skill is, and
//! how a folder of them is read and checked, is [`Skill`](crate::handler::skill::Skill)'s.

use std::sync::Arc;

use mcp_runtime_core::ErrorObject;
use mcp_runtime_core::params::PaginatedRequestParams;
use mcp_runtime_core::result::{Cacheable, Paginated};
use mcp_runtime_core::skills::{
    GetSkillRequestParams, GetSkillResult, ListSkillsResult, ReadDirectoryRequestParams,
    ReadDirectoryResult,
};

use super::McpServer;
use super::caching::CachedList;
use super::list::page;
use super::registry::RegisteredSkill;
use crate::handler::skill::SKILL_MD;

/// `skills/list`: one page of the skills.
pub(super) fn list(
    server: &McpServer,
    params: &PaginatedRequestParams,
) -> Result<ListSkillsResult, ErrorObject> {
    let skills = server.inner.registry.skills.snapshot();
    let entries = skills.iter().map(|s| s.entry().clone()).collect();
    paged(server, entries, params.cursor.as_deref())
}

/// The page of `items` that `cursor` asks for, as the list result `R`, with the skills'
/// caching hint.
fn paged<R: Paginated>(
    server: &McpServer,
    items: Vec<R::Item>,
    cursor: Option<&str>,
) -> Result<R, ErrorObject> {
    let options = &server.inner.options;
    let (items, next) = page(R::LIST, items, cursor, options.page_size)?;
    let mut result = R::page(items, next);
    result.set_cache_hint(options.cache_hint(CachedList::Skills));
    Ok(result)
}

/// `skills/get`: the skill whose `SKILL.md` is at the URI.
pub(super) fn get(
    server: &McpServer,
    params: &GetSkillRequestParams,
) -> Result<GetSkillResult, ErrorObject> {
    let skill = skill_of(server, &params.uri)
        .filter(|(_, path)| *path == SKILL_MD)
        .map(|(skill, _)| skill)
        .ok_or_else(|| {
            ErrorObject::invalid_params(format!(
                "no skill is at {}: skills/list names the skills",
                params.uri
            ))
        })?;
    let mut result = GetSkillResult::new(skill.entry().clone());
    result.set_cache_hint(server.inner.options.cache_hint(CachedList::Skills));
    Ok(result)
}

/// `resources/directory/read`: one page of the direct children of a skill's folder.
pub(super) fn read_directory(
    server: &McpServer,
    params: &ReadDirectoryRequestParams,
) -> Result<ReadDirectoryResult, ErrorObject> {
    let not_a_directory = || {
        ErrorObject::invalid_params(format!(
            "{} is not a directory of a skill: directories are a skill's URI without \
             /SKILL.md, and its sub-folders",
            params.uri
        ))
    };
    let (skill, dir) = skill_of(server, params.uri.trim_end_matches('/'))
        .or_else(|| {
            // The skill's root: `skill://<name>`.
            let name = params.uri.strip_prefix("skill://")?.trim_end_matches('/');
            server.inner.registry.skills.get(name).map(|s| (s, ""))
        })
        .ok_or_else(not_a_directory)?;
    let children = skill.children(dir).ok_or_else(not_a_directory)?;
    paged(server, children, params.cursor.as_deref())
}

/// The skill `uri` is in, and the path of `uri` in it (`skill://<name>/<path>`).
fn skill_of<'a>(server: &McpServer, uri: &'a str) -> Option<(Arc<RegisteredSkill>, &'a str)> {
    let (name, path) = uri.strip_prefix("skill://")?.split_once('/')?;
    Some((server.inner.registry.skills.get(name)?, path))
}
