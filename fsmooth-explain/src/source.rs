//! The Rust file being explained: its `fsmooth!` blocks, and errors printed as rustc prints
//! them, with the line they point at.

use proc_macro2::{Span, TokenStream};
use syn::visit::Visit;

/// A Rust source file.
pub struct Source {
    /// The path as given (for the `-->` line).
    pub path: String,
    /// Its text.
    pub text: String,
}

impl Source {
    /// The token trees of every `fsmooth! { .. }` (or `fsmooth::fsmooth! { .. }`) in the
    /// file, in order, wherever they are (items, function bodies, modules); or the error
    /// that stops the file from parsing, printed.
    pub fn blocks(&self) -> Result<Vec<TokenStream>, String> {
        let file = syn::parse_file(&self.text).map_err(|e| self.errors(e))?;
        let mut finder = Finder { blocks: Vec::new() };
        finder.visit_file(&file);
        Ok(finder.blocks)
    }

    /// Every error of `e`, as rustc prints one.
    pub fn errors(&self, e: syn::Error) -> String {
        e.into_iter()
            .map(|e| self.error(e.span(), &e.to_string()))
            .collect()
    }

    /// `error: msg`, the place, and the line with the range underlined. The message's
    /// further lines (`help: ..`) follow as notes.
    pub fn error(&self, span: Span, msg: &str) -> String {
        self.diagnostic("error", span, msg)
    }

    /// A diagnostic of `level` (`error`, `warning`) as rustc prints it.
    pub fn diagnostic(&self, level: &str, span: Span, msg: &str) -> String {
        let mut lines = msg.lines();
        let head = lines.next().unwrap_or("");
        let (start, end) = (span.start(), span.end());
        let number = start.line.to_string();
        let gutter = " ".repeat(number.len());
        let mut out = format!(
            "{level}: {head}\n{gutter}--> {}:{}:{}\n",
            self.path,
            start.line,
            start.column + 1
        );
        if let Some(line) = self.text.lines().nth(start.line.saturating_sub(1)) {
            let width = line.chars().count();
            let stop = if end.line == start.line {
                end.column
            } else {
                width
            };
            let carets = stop.saturating_sub(start.column).max(1);
            out.push_str(&format!(
                "{gutter} |\n{number} | {line}\n{gutter} | {}{}\n",
                " ".repeat(start.column),
                "^".repeat(carets)
            ));
        }
        for note in lines {
            out.push_str(&format!("{gutter} = {}\n", note.trim()));
        }
        out.push('\n');
        out
    }
}

/// Collects the token trees of `fsmooth!` invocations.
struct Finder {
    blocks: Vec<TokenStream>,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "fsmooth") {
            self.blocks.push(m.tokens.clone());
        }
        syn::visit::visit_macro(self, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source {
            path: "src/lib.rs".into(),
            text: text.into(),
        }
    }

    #[test]
    fn blocks_are_found_at_any_depth() {
        let s = source(
            "use fsmooth::fsmooth;\n\
             fsmooth! { pub fn a(x: [f64; n]) -> f64 { sum(x) } }\n\
             mod inner { fn f() { fsmooth::fsmooth! { pub fn b(x: [f64; n]) -> f64 { sum(x) } } } }\n\
             fn g() { println!(\"no\"); }\n",
        );
        let blocks = s.blocks().unwrap();
        assert_eq!(blocks.len(), 2);
        assert!(blocks[1].to_string().contains("pub fn b"));
    }

    #[test]
    fn errors_point_at_the_line_and_columns() {
        let s = source("fn main() {\n    let x = ;\n}\n");
        let err = s.blocks().unwrap_err();
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(" --> src/lib.rs:2:13\n"), "{err}");
        assert!(
            err.contains("2 |     let x = ;\n  |             ^\n"),
            "{err}"
        );
    }
}
