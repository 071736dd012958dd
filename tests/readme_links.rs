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

/// The anchor a code host gives a Markdown heading: lower case, spaces as `-`, other
/// punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `text`'s headings, outside code blocks.
fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

#[test]
fn every_relative_doc_link_and_section_reference_points_at_a_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    let mut bad = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let dir = page.parent().unwrap();
        // Inline links `](target)` whose target is relative.
        for part in text.split("](").skip(1) {
            let Some(target) = part.split(')').next() else {
                continue;
            };
            if target.starts_with("http") || target.contains(' ') || target.is_empty() {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file_path = if file.is_empty() {
                page.clone()
            } else {
                dir.join(file)
            };
            if !file_path.exists() {
                bad.push(format!("{}: `{target}` names no file", page.display()));
                continue;
            }
            if !anchor.is_empty() && file_path.extension().is_some_and(|x| x == "md") {
                let other = std::fs::read_to_string(&file_path).unwrap();
                if !anchors(&other).iter().any(|a| a == anchor) {
                    bad.push(format!("{}: `{target}` names no heading", page.display()));
                }
            }
        }
    }
    // docs/language.md's own "(section N)": a heading numbered N exists.
    let lang = std::fs::read_to_string(root.join("docs/language.md")).unwrap();
    let numbered: Vec<String> = lang
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|h| h.split_once(". ").map(|(n, _)| n.to_string()))
        .collect();
    for part in lang.split("section ").skip(1) {
        let n: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !n.is_empty() && !numbered.contains(&n) {
            bad.push(format!(
                "docs/language.md: \"section {n}\" names no heading"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
