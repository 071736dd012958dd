//! The blocks a file's imports name (`use crate::geometry::{..}`): a block of the same file
//! that declares `pub mod geometry;`, else one in another file of the file's crate.
//!
//! The tool does not follow the crate's module tree: a path whose last segment is a block's
//! module name means that block (`crate::geometry`, `self::geometry`,
//! `crate::shapes::geometry`). The crate is the nearest directory above the file holding a
//! `Cargo.toml`; its files are the `.rs` files under its `src/`, `examples/`, `tests/` and
//! `benches/`, recursively, in sorted order, without `target/` or a directory holding a
//! `Cargo.toml` of its own (another crate). Another crate's blocks are not at hand.

use proc_macro2::TokenStream;
use std::path::{Path, PathBuf};

/// A block that declares a module.
struct Module {
    /// The module's name (`geometry` for `pub mod geometry;`).
    name: String,
    /// The block's tokens.
    tokens: TokenStream,
    /// The module paths its own imports name, as written.
    imports: Vec<String>,
}

/// The module paths `program` imports from, as written (`crate::geometry`).
fn import_paths(program: &fsmooth_core::front::ast::Program) -> Vec<String> {
    program.imports.iter().map(|i| i.path_text()).collect()
}

/// The blocks among `blocks` that declare a module.
fn declared(blocks: &[TokenStream]) -> Vec<Module> {
    blocks
        .iter()
        .filter_map(|b| {
            let p = fsmooth_core::front::parse::parse(b.clone(), &mut Default::default())?;
            Some(Module {
                name: p.module.as_ref()?.name.text.clone(),
                imports: import_paths(&p),
                tokens: b.clone(),
            })
        })
        .collect()
}

/// The blocks every import of the file's `blocks` names, under the path it names them by;
/// `file` is where the blocks are, for finding its crate. A block taken from another file
/// brings its own imports, resolved the same way. An import that names no block is left
/// out (the front end reports it).
pub fn modules(blocks: &[TokenStream], file: &Path) -> Vec<(String, TokenStream)> {
    let own = declared(blocks);
    // The file's imports, then those of the blocks taken from other files, in order.
    let mut paths: Vec<String> = blocks
        .iter()
        .filter_map(|b| fsmooth_core::front::parse::parse(b.clone(), &mut Default::default()))
        .flat_map(|p| import_paths(&p))
        .collect();
    // The crate's other files are read only if the file itself does not have every block.
    let mut elsewhere: Option<Vec<Module>> = None;
    let mut out: Vec<(String, TokenStream)> = Vec::new();
    let mut next = 0;
    while let Some(path) = paths.get(next).cloned() {
        next += 1;
        if out.iter().any(|(p, _)| *p == path) {
            continue;
        }
        let last = path.rsplit("::").next().unwrap_or(&path);
        if let Some(m) = own.iter().find(|m| m.name == last) {
            out.push((path, m.tokens.clone()));
            continue;
        }
        let others = elsewhere.get_or_insert_with(|| crate_blocks(file));
        if let Some(m) = others.iter().find(|m| m.name == last) {
            out.push((path, m.tokens.clone()));
            paths.extend(m.imports.iter().cloned());
        }
    }
    out
}

/// The module-declaring blocks of the other files of `file`'s crate, in sorted path order
/// (none when no directory above the file holds a `Cargo.toml`). A file that does not
/// parse is skipped: only the file explained has its errors shown.
fn crate_blocks(file: &Path) -> Vec<Module> {
    let Ok(file) = std::fs::canonicalize(file) else {
        return Vec::new();
    };
    let Some(root) = file
        .ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
    else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for dir in ["src", "examples", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut out = Vec::new();
    for f in files.into_iter().filter(|f| *f != file) {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        // Most files have no block: no need to parse them.
        if !text.contains("fsmooth") {
            continue;
        }
        let source = crate::source::Source {
            path: f.display().to_string(),
            text,
        };
        if let Ok(blocks) = source.blocks() {
            out.extend(declared(&blocks));
        }
    }
    out
}

/// Every `.rs` file under `dir`, recursively, but for `target/` and other crates' directories.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            let other_crate = path.join("Cargo.toml").is_file();
            if !other_crate && e.file_name() != "target" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}
