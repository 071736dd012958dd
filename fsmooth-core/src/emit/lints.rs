//! `lints`: a block's unused names ([`crate::front::unused`]) reported by rustc's own lints.
//!
//! For each finding the block emits a small item that rustc lints exactly as it would the
//! user's Rust, with the identifier carrying the user's span: the warning, its help ("prefix
//! it with an underscore") and every lint level (`#[allow]` on the block's `fn`,
//! `#![allow(unused)]` on the module, `#[expect]`, `-D warnings`) are rustc's own.
//!
//! - An unused binding of function `f` is `let x: Infallible;` in a function of our own
//!   inside `const _: () = { .. };`, under `f`'s lint attributes: `unused_variables`. (Of a
//!   type no constant can have: rustc suggests "the similarly named constant" of the
//!   binding's type, which for `()` would be the `const _` itself.)
//! - A dead helper `h` is `fn h() { .. }` with its `fn`, name and braces at the helper's
//!   name (rustc's `dead_code` skips items whose tokens come from a macro), under `h`'s
//!   lint attributes; its unused bindings go in its body.
//! - An unused import is `use ::core::mem::drop as g;` at the import's tokens, a glob
//!   `use ::core::mem::*;` at its `*`: `unused_imports`.
//!
//! Each item sits in its own anonymous `const`, so its names are local to it and clash with
//! nothing of the user's; the items carry no `#[allow]` of their own (a `#![forbid]` in the
//! user's crate would reject it) and nothing rustc or clippy lints besides the finding.
//! A function's `#[expect(unused_variables)]` (or `dead_code`, `unused`) moves from the
//! kernel to its item, where the lint is raised ([`kernel_attrs`]); the item is emitted for
//! such a function even with nothing to report, so that an unmet expectation warns.

use crate::front::ast::{FnDef, ident};
use crate::front::unused::{Unused, UnusedImport};
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::punctuated::Punctuated;

/// The items that make rustc report `found`, for the user's functions `fns` (the block's,
/// in order: [`Unused`]'s indexes point into it).
pub fn unused(fns: &[FnDef], found: &Unused) -> TokenStream {
    let mut out = TokenStream::new();
    for (fi, f) in fns.iter().enumerate() {
        let (attrs, expects) = item_attrs(&f.attrs);
        let finding = found.fns.iter().find(|u| u.index == fi);
        let lets = finding.into_iter().flat_map(|u| &u.bindings).map(|b| {
            let id = ident(&b.text, b.span);
            quote!(let #id: ::core::convert::Infallible;)
        });
        let mut body = Group::new(Delimiter::Brace, lets.collect());
        if finding.is_some_and(|u| u.dead) {
            // Every token of the item at the helper's name (the bindings inside keep their
            // own): the item is the user's to rustc.
            let at = f.name.span;
            let name = ident(&f.name.text, at);
            body.set_span(at);
            let head = respan(quote!(fn #name()), at);
            out.extend(quote!(const _: () = { #(#attrs)* #head #body };));
        } else if finding.is_some() || expects {
            out.extend(quote!(const _: () = { #(#attrs)* fn __fsmooth_unused() #body };));
        }
    }
    for import in &found.imports {
        let item = match import {
            UnusedImport::Name { name, alias } => {
                let path = respan(quote!(::core::mem::drop), name.span);
                let alias = ident(&alias.text, alias.span);
                let as_ = respan(quote!(as), alias.span());
                quote!(use #path #as_ #alias;)
            }
            UnusedImport::Glob(star) => {
                let tree = respan(quote!(::core::mem::*), *star);
                quote!(use #tree;)
            }
        };
        out.extend(quote!(const _: () = { #item };));
    }
    out
}

/// The attributes of a function's kernel: its own, less the parts of its `#[expect(..)]`s
/// that only the items of [`unused`] can meet (the kernel allows every `unused` lint in its
/// generated body, so an expectation of one left there would always warn as unfulfilled).
pub fn kernel_attrs(attrs: &[TokenStream]) -> Vec<TokenStream> {
    attrs
        .iter()
        .filter_map(|a| match parse_attr(a) {
            Some(attr) if attr.path().is_ident("expect") => {
                expectation(&attr, |lint| !ours(lint)).map(|t| t.into_token_stream())
            }
            _ => Some(a.clone()),
        })
        .collect()
}

/// The attributes for a function's item: its lint levels (`allow`, `warn`, `deny`,
/// `forbid`), the parts of its `#[expect(..)]`s about the lints the item raises, and its
/// `#[cfg(..)]` (no item for a function compiled out); and whether there was such an
/// expectation.
fn item_attrs(attrs: &[TokenStream]) -> (Vec<TokenStream>, bool) {
    let mut out = Vec::new();
    let mut expects = false;
    for a in attrs {
        let Some(attr) = parse_attr(a) else { continue };
        let path = attr.path();
        if ["allow", "warn", "deny", "forbid", "cfg"]
            .iter()
            .any(|p| path.is_ident(p))
        {
            out.push(a.clone());
        } else if path.is_ident("expect")
            && let Some(t) = expectation(&attr, ours)
        {
            expects = true;
            out.push(t);
        }
    }
    (out, expects)
}

/// The lint levels (`allow`, `warn`, `deny`, `forbid`) and `#[cfg(..)]` of a function's
/// attributes: for the items of [`crate::emit::remarks`].
pub fn level_attrs(attrs: &[TokenStream]) -> Vec<TokenStream> {
    attrs
        .iter()
        .filter(|a| {
            parse_attr(a).is_some_and(|attr| {
                ["allow", "warn", "deny", "forbid", "cfg"]
                    .iter()
                    .any(|p| attr.path().is_ident(p))
            })
        })
        .cloned()
        .collect()
}

/// The lints the items of [`unused`] raise, and the group holding them.
fn ours(lint: &syn::Path) -> bool {
    ["unused_variables", "dead_code", "unused_imports", "unused"]
        .iter()
        .any(|l| lint.is_ident(l))
}

/// `#[expect(..)]` keeping the lints that `keep` accepts (and the `reason`), with the
/// user's tokens; `None` when it keeps none, or is not a list of lints.
fn expectation(attr: &syn::Attribute, keep: fn(&syn::Path) -> bool) -> Option<TokenStream> {
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let items = list
        .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        .ok()?;
    let lints = |m: &&syn::Meta| matches!(m, syn::Meta::Path(p) if keep(p));
    if !items.iter().any(|m| lints(&m)) {
        return None;
    }
    let kept = items
        .iter()
        .filter(|m| lints(m) || matches!(m, syn::Meta::NameValue(_)));
    let mut inner = TokenStream::new();
    list.path.to_tokens(&mut inner);
    let mut args = Group::new(Delimiter::Parenthesis, quote!(#(#kept),*));
    args.set_span(list.delimiter.span().join());
    inner.extend([TokenTree::Group(args)]);
    let mut out = TokenStream::new();
    attr.pound_token.to_tokens(&mut out);
    let mut bracket = Group::new(Delimiter::Bracket, inner);
    bracket.set_span(attr.bracket_token.span.join());
    out.extend([TokenTree::Group(bracket)]);
    Some(out)
}

/// One outer attribute from its tokens (`#[..]`).
fn parse_attr(tokens: &TokenStream) -> Option<syn::Attribute> {
    let mut attrs = syn::parse::Parser::parse2(syn::Attribute::parse_outer, tokens.clone()).ok()?;
    (attrs.len() == 1).then(|| attrs.remove(0))
}

/// `tokens` with every span set to `at`.
fn respan(tokens: TokenStream, at: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut g = Group::new(g.delimiter(), respan(g.stream(), at));
                g.set_span(at);
                TokenTree::Group(g)
            }
            mut t => {
                t.set_span(at);
                t
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn an_unused_let_becomes_an_unused_variable_under_the_functions_lint_levels() {
        let out = expand(
            "#[allow(unused_variables)] #[doc = \"k\"] #[inline]
             pub fn k(a: f64) -> f64 { let a1 = 2.0 * a; a }",
        );
        let item = "const _ : () = { # [allow (unused_variables)] fn __fsmooth_unused () { let a1 : :: core :: convert :: Infallible ; } } ;";
        assert!(out.contains(item), "{out}");
        assert_eq!(out.matches("const _").count(), 1, "{out}");
    }

    #[test]
    fn a_block_with_nothing_unused_emits_no_item() {
        let out = expand("pub fn k(a: f64) -> f64 { let b = a; b }");
        assert!(!out.contains("const _"), "{out}");
        assert!(!out.contains("__fsmooth_unused"), "{out}");
    }

    #[test]
    fn a_block_with_errors_emits_no_item() {
        let out = expand("pub fn k(a: f64) -> f64 { let b = a; c }");
        assert!(out.contains("compile_error"), "{out}");
        assert!(!out.contains("const _"), "{out}");
    }

    #[test]
    fn a_dead_helper_is_a_function_of_its_name_holding_its_unused_bindings() {
        let out = expand(
            "#[warn(dead_code)] fn helper(x: f64, y: f64) -> f64 { x }
             pub fn k(a: f64) -> f64 { a }",
        );
        assert!(
            out.contains("const _ : () = { # [warn (dead_code)] fn helper () { let y : :: core :: convert :: Infallible ; } } ;"),
            "{out}"
        );
    }

    #[test]
    fn unused_imports_are_uses_of_a_function_that_always_exists() {
        let modules = [
            (
                "crate::geometry",
                "pub mod geometry; fn rotate(x: f64) -> f64 { x } fn cross(x: f64) -> f64 { x }"
                    .parse()
                    .unwrap(),
            ),
            (
                "crate::other",
                "pub mod other; fn f(x: f64) -> f64 { x }".parse().unwrap(),
            ),
        ];
        let out = crate::pipeline::compile_with(
            "use crate::geometry::{rotate as r, cross};\nuse crate::other::*;\npub fn k(a: f64) -> f64 { a }"
                .parse()
                .unwrap(),
            &modules,
        )
        .to_string();
        for item in [
            "const _ : () = { use :: core :: mem :: drop as r ; } ;",
            "const _ : () = { use :: core :: mem :: drop as cross ; } ;",
            "const _ : () = { use :: core :: mem :: * ; } ;",
        ] {
            assert!(out.contains(item), "{item}: {out}");
        }
    }

    #[test]
    fn expectations_of_our_lints_move_from_the_kernel_to_its_item() {
        let out = expand(
            "#[expect(unused_variables, missing_docs, reason = \"wip\")]
             pub fn k(a: f64, b: f64) -> f64 { a }",
        );
        assert!(
            out.contains("# [expect (unused_variables , reason = \"wip\")] fn __fsmooth_unused () { let b : :: core :: convert :: Infallible ; }"),
            "{out}"
        );
        // The kernel keeps the other expectation (then its generated doc comment).
        assert!(
            out.contains("# [expect (missing_docs , reason = \"wip\")] # [doc = "),
            "{out}"
        );
        // With nothing unused, the item is still emitted: the unmet expectation warns.
        let out = expand("#[expect(unused)] pub fn k(a: f64) -> f64 { a }");
        assert!(
            out.contains("const _ : () = { # [expect (unused)] fn __fsmooth_unused () { } } ;"),
            "{out}"
        );
        assert!(!out.contains("# [expect (unused)] # [allow"), "{out}");
    }

    #[test]
    fn only_lint_levels_and_cfg_reach_the_items() {
        let (attrs, expects) = item_attrs(&[
            quote!(#[doc = "d"]),
            quote!(#[inline]),
            quote!(#[cfg(feature = "x")]),
            quote!(#[deny(unused)]),
            quote!(#[forbid(dead_code)]),
            quote!(#[expect(missing_docs)]),
        ]);
        let text: Vec<String> = attrs.iter().map(|a| a.to_string()).collect();
        assert_eq!(
            text,
            [
                "# [cfg (feature = \"x\")]",
                "# [deny (unused)]",
                "# [forbid (dead_code)]"
            ]
        );
        assert!(!expects);
    }
}
