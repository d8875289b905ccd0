//! `include_skills!("../skills")`: a skills folder embedded in the binary.
//!
//! The path is relative to the file that calls the macro, as with `include_str!` (when the
//! compiler names no real file, as in a doctest, to the crate's `Cargo.toml`). Every file under
//! it (hidden ones, whose name starts with `.`, left out) becomes an `include_bytes!` of its
//! absolute path, so that Cargo rebuilds the crate when one changes; the runtime groups them
//! into skills and checks them when the server is built.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

pub(crate) fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let folder: LitStr = syn::parse2(input)?;
    let base = calling_folder()
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
        .ok_or_else(|| {
            syn::Error::new(
                folder.span(),
                "include_skills!: cannot tell which file calls it, and Cargo names no crate",
            )
        })?;
    let root = base.join(folder.value());
    if !root.is_dir() {
        return Err(syn::Error::new(
            folder.span(),
            format!(
                "include_skills!: {} is not a folder (the path is relative to {})",
                root.display(),
                base.display()
            ),
        ));
    }
    let mut files = Vec::new();
    collect(&root, &root, &mut files)
        .map_err(|error| syn::Error::new(folder.span(), format!("include_skills!: {error}")))?;
    let entries = files.iter().map(|(relative, absolute)| {
        let absolute = absolute.to_string_lossy();
        quote! { (#relative, ::core::include_bytes!(#absolute) as &[u8]) }
    });
    let name = folder.value();
    Ok(quote! {
        ::mcp_runtime::__private::EmbeddedSkills::new(#name, &[#(#entries),*])
    })
}

/// The folder of the source file that calls the macro, when the compiler names a real one.
fn calling_folder() -> Option<PathBuf> {
    let file = proc_macro::Span::call_site().local_file()?;
    let file = if file.is_absolute() {
        file
    } else {
        std::env::current_dir().ok()?.join(file)
    };
    file.parent()
        .map(Path::to_path_buf)
        .filter(|dir| dir.is_dir())
}

/// Every file under `dir`, with its path relative to `root` (`/`-separated) and its absolute
/// path, in order.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_none_or(|n| n.starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files)?;
        } else {
            let relative = path
                .strip_prefix(root)
                .map_err(std::io::Error::other)?
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let absolute = path.canonicalize()?;
            files.push((relative, absolute));
        }
    }
    Ok(())
}
