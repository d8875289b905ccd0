//! URI templates (RFC 6570, as resource templates use them): parsing any template, matching any
//! URI against it, and expanding it with the values a match captured.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_runtime::resource::uri_template::UriTemplate;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The template, then the URI after the first newline.
    let (template, uri) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(template) = UriTemplate::parse(template) else {
        return;
    };
    let Some(found) = template.matches(uri) else {
        return;
    };
    let values: Vec<(&str, &str)> = found.iter().collect();
    let _ = template.expand(&values);
});
