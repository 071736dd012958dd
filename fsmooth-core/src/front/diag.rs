//! Diagnostics: every error of a block is collected and reported together, each on the
//! tokens it is about.

use crate::front::ast::Sp;
use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;

/// An error underlining the whole range `span`.
pub fn error(span: impl Into<Sp>, msg: impl std::fmt::Display) -> syn::Error {
    let sp = span.into();
    // Two tokens carrying the range's ends: syn spans an error from the first to the last.
    let mut ts = TokenStream::new();
    Ident::new("start", sp.start).to_tokens(&mut ts);
    Ident::new("end", sp.end).to_tokens(&mut ts);
    syn::Error::new_spanned(ts, msg)
}

/// The errors of one block, kept in the order found and reported in source order.
#[derive(Default)]
pub struct Diags {
    errors: Vec<syn::Error>,
}

/// Where an error starts, to report errors in source order (line, then column). Passes find
/// errors in their own order (every signature before any body, say), not the reader's.
fn position(e: &syn::Error) -> (usize, usize) {
    let start = e.span().start();
    (start.line, start.column)
}

impl Diags {
    /// Record an error (the same message at the same place only once).
    pub fn push(&mut self, e: syn::Error) {
        let key = (format!("{:?}", e.span()), e.to_string());
        if self
            .errors
            .iter()
            .any(|x| (format!("{:?}", x.span()), x.to_string()) == key)
        {
            return;
        }
        self.errors.push(e);
    }

    /// Record an error with `msg` on the tokens of `span` (a single token or a range).
    pub fn error(&mut self, span: impl Into<Sp>, msg: impl std::fmt::Display) {
        self.push(error(span, msg));
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// How many errors were reported.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Forget the errors reported after the first `n` (a tentative elaboration that was
    /// redone with other literal types).
    pub fn truncate(&mut self, n: usize) {
        self.errors.truncate(n);
    }

    /// The errors in source order.
    fn in_order(&self) -> Vec<&syn::Error> {
        let mut errors: Vec<&syn::Error> = self.errors.iter().collect();
        // Stable: errors at one place keep the order they were found in.
        errors.sort_by_key(|e| position(e));
        errors
    }

    /// The messages, in source order, for tests.
    pub fn messages(&self) -> Vec<String> {
        self.in_order().iter().map(|e| e.to_string()).collect()
    }

    /// All errors as one combined error, in source order, if any.
    pub fn into_error(self) -> Option<syn::Error> {
        let mut errors = self.errors;
        errors.sort_by_key(position);
        let mut it = errors.into_iter();
        let mut first = it.next()?;
        for e in it {
            first.combine(e);
        }
        Some(first)
    }

    /// The `compile_error!` invocations for every error, in source order.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.in_order()
            .iter()
            .map(|e| e.to_compile_error())
            .collect()
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // One edit turns any one-letter name into another: short names get no suggestion.
    let limit = name.chars().count() / 3;
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_come_out_in_source_order() {
        let ts: TokenStream = "a\nb\nc".parse().unwrap();
        let spans: Vec<_> = ts.into_iter().map(|t| t.span()).collect();
        let mut d = Diags::default();
        d.error(spans[2], "third line");
        d.error(spans[0], "first line");
        d.error(spans[1], "second line");
        assert_eq!(d.messages(), ["first line", "second line", "third line"]);
        let all = d.to_compile_errors().to_string();
        let at = |m: &str| all.find(m).unwrap();
        assert!(
            at("first") < at("second") && at("second") < at("third"),
            "{all}"
        );
    }

    #[test]
    fn suggests_near_names_only() {
        assert_eq!(closest("sqnrom", ["sqnorm", "norm", "sum"]), Some("sqnorm"));
        assert_eq!(closest("zzz", ["sqnorm", "norm"]), None);
    }
}
