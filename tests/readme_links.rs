//! The README is the crate's rustdoc (`src/lib.rs`). Its links to the repository's files are
//! reference links whose targets are relative paths, right on a clone or a code host but
//! broken in rustdoc's output; `src/lib.rs` defines each of those labels again, first (the
//! first definition of a label wins), with an address that works on docs.rs. These tests keep
//! the two lists in step, and the relative targets pointing at files that exist.

use std::path::Path;

const README: &str = include_str!("../README.md");
const LIB: &str = include_str!("../src/lib.rs");

/// The README's link reference definitions, `[label]: target`, outside code blocks.
fn definitions(text: &str) -> Vec<(&str, &str)> {
    let mut in_code = false;
    let mut defs = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('[') {
            continue;
        }
        if let Some((label, target)) = line.split_once("]: ") {
            defs.push((&label[1..], target.trim()));
        }
    }
    defs
}

#[test]
fn the_readme_defines_its_links() {
    let defs = definitions(README);
    for label in [
        "language.md",
        "errors.md",
        "EMBEDDED.md",
        "BENCHMARKS.md",
        "internals.md",
    ] {
        assert!(
            defs.iter().any(|(l, _)| *l == label),
            "README has no link `[{label}]`"
        );
    }
}

#[test]
fn every_relative_readme_link_names_a_file_and_is_redefined_for_rustdoc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (label, target) in definitions(README) {
        if target.starts_with("https://") {
            continue;
        }
        assert!(
            root.join(target).is_file(),
            "README link `[{label}]: {target}` names no file"
        );
        assert!(
            LIB.contains(&format!("[{label}]: ")),
            "README link `[{label}]` is relative ({target}): src/lib.rs must define it first, \
             with an address that works on docs.rs"
        );
    }
}
