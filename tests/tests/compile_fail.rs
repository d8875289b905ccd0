//! The attribute macros refuse what cannot work, at compile time, with errors that point at the
//! problem. Each case under `ui/` has its expected compiler output next to it (`.stderr`).

#[test]
fn misuse_fails_to_compile_with_a_clear_error() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
