//! Diagnostics: every error of a block is collected and reported together, each on the
//! tokens it is about.

use proc_macro2::{Span, TokenStream};

/// The errors of one block, in the order found.
#[derive(Default)]
pub struct Diags {
    errors: Vec<syn::Error>,
}

impl Diags {
    /// Record an error.
    pub fn push(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// Record an error with `msg` at `span`.
    pub fn error(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// How many errors were reported.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// The messages, for tests.
    pub fn messages(&self) -> Vec<String> {
        self.errors.iter().map(|e| e.to_string()).collect()
    }

    /// All errors as one combined error, if any.
    pub fn into_error(self) -> Option<syn::Error> {
        let mut it = self.errors.into_iter();
        let mut first = it.next()?;
        for e in it {
            first.combine(e);
        }
        Some(first)
    }

    /// The `compile_error!` invocations for every error.
    pub fn to_compile_errors(&self) -> TokenStream {
        self.errors.iter().map(|e| e.to_compile_error()).collect()
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.len() / 3).max(1);
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
    fn suggests_near_names_only() {
        assert_eq!(closest("sqnrom", ["sqnorm", "norm", "sum"]), Some("sqnorm"));
        assert_eq!(closest("zzz", ["sqnorm", "norm"]), None);
    }
}
