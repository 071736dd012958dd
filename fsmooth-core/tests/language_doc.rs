//! Every fsmooth example in docs/language.md and docs/derivatives.md compiles: each ```rust block that holds
//! fsmooth source (a `fsmooth! { .. }` block, or `fn` items written with fsmooth types) is
//! expanded and must give no error, nor any warning. A block marked ```rust,ignore is
//! skipped (a generated signature, or an example of a mistake).

/// The code blocks of `text` fenced as ```rust, with their first line number.
fn rust_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        match &mut cur {
            None if t == "```rust" => cur = Some((n + 2, String::new())),
            Some(_) if t.starts_with("```") => out.extend(cur.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    out
}

/// The fsmooth source of a block: the inside of its `fsmooth! { .. }`, or the block itself
/// when it holds only fsmooth items; `None` for plain Rust.
fn fsmooth_source(block: &str) -> Option<String> {
    if block.contains("fsmooth! {") {
        return all_blocks(block).into_iter().next();
    }
    // Line comments (not doc comments) may show the generated Rust: not part of the source.
    let code: Vec<&str> = block
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("//") || t.starts_with("///")
        })
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect();
    let code = code.join("\n");
    let rust_only = ["&mut", "&[", "Region", "fn main", "let mut", "assert"];
    (code.contains("fn ") && !rust_only.iter().any(|r| code.contains(r))).then_some(code)
}

/// Every `fsmooth! { .. }` block of an example, in order (several when blocks import from
/// each other).
fn all_blocks(block: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = block;
    while let Some(at) = rest.find("fsmooth! {") {
        let inner = &rest[at + "fsmooth! {".len()..];
        let mut depth = 1;
        let mut end = inner.len();
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(inner[..end].to_string());
        rest = &inner[end..];
    }
    out
}

/// An example of several blocks (section 13): each compiles, its imports linked to the
/// example's blocks that declare `pub mod name;` (as `crate::name`). The expansions, joined.
fn expand_blocks(blocks: &[String]) -> Result<String, String> {
    let mut modules: Vec<(String, proc_macro2::TokenStream)> = Vec::new();
    for b in blocks {
        let tokens: proc_macro2::TokenStream = b.parse().map_err(|e| format!("{e:?}"))?;
        let decl = b.split("pub mod ").nth(1).and_then(|r| r.split(';').next());
        if let Some(name) = decl {
            modules.push((format!("crate::{}", name.trim()), tokens));
        }
    }
    let modules: Vec<(&str, proc_macro2::TokenStream)> = modules
        .iter()
        .map(|(p, t)| (p.as_str(), t.clone()))
        .collect();
    let mut out = String::new();
    for b in blocks {
        let tokens: proc_macro2::TokenStream = b.parse().map_err(|e| format!("{e:?}"))?;
        out += &fsmooth_core::pipeline::compile_with(tokens, &modules).to_string();
    }
    Ok(out)
}

#[test]
fn every_fsmooth_example_in_the_language_reference_compiles() {
    // The language reference, then the derivatives guide.
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/");
    let text = ["language.md", "derivatives.md"]
        .map(|f| std::fs::read_to_string(format!("{docs}{f}")).expect(f))
        .join("\n");
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut earlier: Vec<String> = Vec::new();
    for (line, block) in rust_blocks(&text) {
        let Some(src) = fsmooth_source(&block) else {
            continue;
        };
        let expand = |src: &str| -> Result<String, String> {
            let tokens: proc_macro2::TokenStream = src.parse().map_err(|e| format!("{e:?}"))?;
            Ok(fsmooth_core::expand(tokens).to_string())
        };
        let blocks = all_blocks(&block);
        let expanded = if blocks.len() > 1 {
            expand_blocks(&blocks)
        } else {
            expand(&src)
        };
        let mut out = match expanded {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("line {line}: does not tokenize: {e}"));
                continue;
            }
        };
        // An example may use the helpers of an earlier one (`stats` calls `moments`).
        for before in earlier.iter().rev() {
            if !out.contains("cannot find function") {
                break;
            }
            if let Ok(joined) = expand(&format!("{before}\n{src}"))
                && !joined.contains("cannot find function")
            {
                out = joined;
            }
        }
        earlier.push(src);
        // A claim `k::scratch_len(..) == 0` in the example's comments is checked too.
        for claim in block
            .lines()
            .filter(|l| l.contains("::scratch_len(") && l.contains("== 0"))
        {
            let name = claim
                .split("::scratch_len(")
                .next()
                .and_then(|h| {
                    h.rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                })
                .unwrap_or("");
            let module = format!("pub mod {name} {{");
            let zero = out.find(&module).is_some_and(|at| {
                let rest = &out[at..];
                rest.find("scratch_len").is_some_and(|s| {
                    rest[s..]
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .contains("{ 0usize")
                })
            });
            if !zero {
                failures.push(format!("line {line}: `{}` does not hold", claim.trim()));
            }
        }
        if let Some(at) = out.find("compile_error") {
            let msg: String = out[at..].chars().take(300).collect();
            failures.push(format!("line {line}: {msg}"));
        }
        // Nor does it warn: an unused name is reported through an item in a `const _`
        // (unless the example allows it: the item carries the `fn`'s `#[allow(..)]`).
        for (at, _) in out.match_indices("const _ : () = {") {
            let item: String = out[at..].chars().take(300).collect();
            if !item["const _ : () = {".len()..]
                .trim_start()
                .starts_with("# [allow (")
            {
                failures.push(format!("line {line}: warns: {item}"));
            }
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
