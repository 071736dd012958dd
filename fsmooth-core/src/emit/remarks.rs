//! `remarks`: what a kernel's memory plan costs, reported as rustc warnings on the user's
//! tokens (`#![fsmooth(remarks = true)]`; LANGUAGE.md section 13, docs/remarks.md).
//!
//! One remark per array the plan stores ([`Holds`]: a `let`'s array, a value materialised
//! where it is read), per fold state kept in two buffers (or in its output and one buffer),
//! per new row computed apart and copied over its old row, and per array copied into an
//! output. [`remarks`] computes them once, from the kernel after the middle and its plan:
//! the emitter turns each into a warning ([`tokens`]) and the explain tool prints the same
//! list (`--remarks`).
//!
//! The warning is rustc's own `deprecated` lint: each remark is a `const fn` marked
//! `#[deprecated(note = "..")]`, called at the user's tokens inside an anonymous `const`.
//! So `#[allow(deprecated)]`, `#![deny(warnings)]` and `-D warnings` apply as to any
//! warning, on stable Rust. The kernel's own lint attributes (`#[allow(deprecated)]` on
//! the `fn`) go on its items.

use crate::front::ast::{Options, Sp, Storage};
use crate::front::size::Size;
use crate::lower::Planned;
use crate::lower::storage::{Buffer, Holds};
use crate::middle::ir::{Core, Kernel, Kind, VarId};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// What a remark is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// An array stored in the frame (`remark::stored`).
    Stored,
    /// A fold state kept in two buffers, or in its output and one buffer
    /// (`remark::two_buffers`).
    TwoBuffers,
    /// A fold's new row computed apart, then copied over the old row every step
    /// (`remark::row_copied`).
    RowCopied,
    /// An array already in memory copied into an output (`remark::copied`).
    Copied,
}

impl What {
    /// The deprecated item's name, which rustc prints (`remark::stored`).
    pub fn item(self) -> &'static str {
        match self {
            What::Stored => "stored",
            What::TwoBuffers => "two_buffers",
            What::RowCopied => "row_copied",
            What::Copied => "copied",
        }
    }
}

/// One remark: where, what, and its text (`fsmooth: ...`).
#[derive(Clone, Debug)]
pub struct Remark {
    /// What it is about.
    pub what: What,
    /// The user's tokens it points at.
    pub span: Sp,
    /// The message, as rustc prints it after `use of deprecated function
    /// `remark::stored`: `.
    pub text: String,
}

/// A length in the user's size names, as a polynomial in normal form when it is one
/// (`n * k + 2 * k`), else as the planner folded it.
pub fn length(s: &Size) -> String {
    let s = s.poly().to_size().unwrap_or_else(|| s.fold());
    s.to_string()
}

/// `n * k f64 slots`; `2 f64 slots`; `1 f64 slot`.
fn slots(len: &Size, elem: &str) -> String {
    let l = length(len);
    let plural = if l == "1" { "" } else { "s" };
    format!("{l} {elem} slot{plural}")
}

/// The remarks of kernel `k` (after the middle), whose plan is `planned`, in the order the
/// planner made the buffers, then the copies.
pub fn remarks(k: &Kernel, planned: &Planned, options: Options) -> Vec<Remark> {
    let names = &k.var_names;
    let name = |v: VarId| {
        names
            .get(v as usize)
            .map(|n| n.trim_start_matches("r#").to_string())
            .unwrap_or_else(|| "v".into())
    };
    let heap = options.storage == Storage::Heap;
    let place = if heap {
        "a heap buffer of its own"
    } else {
        "the scratch frame"
    };
    let at = |b: &Buffer| b.span.unwrap_or_else(|| k.name.span.into());
    let mut out = Vec::new();
    let buffers = &planned.buffers;
    for (i, b) in buffers.iter().enumerate() {
        if b.len.as_const() == Some(0) {
            continue;
        }
        let elem = b.elem.name();
        match &b.holds {
            Holds::Let(v) => {
                let what = if name(*v) == "hoisted" {
                    "a table hoisted out of its loop".to_string()
                } else {
                    format!("`{}`", name(*v))
                };
                let why = why_let(&k.body, *v, options);
                out.push(Remark {
                    what: What::Stored,
                    span: at(b),
                    text: format!(
                        "fsmooth: {what} ({}) is stored in {place}: {why}",
                        slots(&b.len, elem)
                    ),
                });
            }
            Holds::Value("updated row") => out.push(Remark {
                what: What::RowCopied,
                span: at(b),
                text: format!(
                    "fsmooth: the new row ({}) is computed apart, then copied over the old \
                     row on every step: an element of it reads other elements of the row it \
                     replaces",
                    slots(&b.len, elem)
                ),
            }),
            Holds::Value(form) => out.push(Remark {
                what: What::Stored,
                span: at(b),
                text: format!(
                    "fsmooth: this `{form}` ({}) is stored in {place}: {}",
                    slots(&b.len, elem),
                    why_value(form)
                ),
            }),
            Holds::Acc { acc, first: true } => {
                let second = buffers[i + 1..]
                    .iter()
                    .any(|o| o.holds == Holds::Acc { acc: *acc, first: false });
                let state = format!("the fold state `{}`", name(*acc));
                let text = if heap || second {
                    format!(
                        "fsmooth: {state} ({} each) is kept in two buffers, swapped on every \
                         step: an element of the new state reads other elements of the old \
                         one",
                        slots(&b.len, elem)
                    )
                } else {
                    format!(
                        "fsmooth: {state} ({}) is kept in {place} besides its destination, \
                         the steps writing one from the other in turn: an element of the new \
                         state reads other elements of the old one",
                        slots(&b.len, elem)
                    )
                };
                out.push(Remark {
                    what: What::TwoBuffers,
                    span: at(b),
                    text,
                });
            }
            // The second buffer of a pair: its first one's remark says both.
            Holds::Acc { first: false, .. } => {}
        }
    }
    for c in &planned.copies {
        if c.len.as_const() == Some(0) {
            continue;
        }
        let what = match c.what {
            Some(v) => format!("`{}`", name(v)),
            None => "this array".into(),
        };
        out.push(Remark {
            what: What::Copied,
            span: c.span,
            text: format!(
                "fsmooth: {what} ({} elements) is copied into the output element by \
                 element: it is an array already in memory",
                length(&c.len)
            ),
        });
    }
    out
}

/// Why a `let`-bound array is stored: how its reads after the `let` look.
fn why_let(body: &Core, v: VarId, options: Options) -> String {
    if !options.fusion {
        return "fusion is off (`#![fsmooth(fusion = false)]`)".into();
    }
    let Some(scope) = let_scope(body, v) else {
        return "its readers could not compute it where they read it".into();
    };
    let reads = crate::middle::fuse::reads_of(v, scope);
    if reads.whole {
        return "it is read as a whole array (not element by element), so it must exist in \
                memory"
            .into();
    }
    match reads.found.as_slice() {
        [] => "its readers could not compute it where they read it".into(),
        [(l, r, _)] if *r > 0 && l.len() > 1 => {
            "each of its elements is read again on every step of a loop that does not index \
             it: computed where it is read, it would be computed again on every step"
                .into()
        }
        [(_, _, idx)] if *idx > 1 => "its elements are read from rows that run loops of their \
                                      own: computed where it is read, each row's loops would \
                                      run again for every element"
            .into(),
        [_] => "it is read after the loop that writes it".into(),
        found => {
            let inner = found[0].0.last();
            let n = count(found.len());
            if inner.is_some() && found.iter().all(|(l, _, _)| l.last() == inner) {
                format!(
                    "it is read at {n} places in one loop, at different indexes: computed \
                     where it is read, each element would be computed more than once"
                )
            } else {
                let loops = found
                    .iter()
                    .filter_map(|(l, _, _)| l.first())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                if loops > 1 {
                    format!(
                        "it is read by {} different loops: computed where it is read, its \
                         work would be done in each",
                        count(loops)
                    )
                } else {
                    format!(
                        "it is read in {n} places: computed where it is read, its work would \
                         be done {n} times"
                    )
                }
            }
        }
    }
}

/// `two`, `three`, .., `12`.
fn count(n: usize) -> String {
    match n {
        2 => "two".into(),
        3 => "three".into(),
        4 => "four".into(),
        5 => "five".into(),
        n => n.to_string(),
    }
}

/// Why an array expression is computed whole where it is read.
fn why_value(form: &str) -> &'static str {
    match form {
        "if" => "a choice of arrays is computed whole before its elements are read",
        "ifold" | "scan" => "its loop computes the whole array before any element is read",
        "array literal" => "its elements are read at an index known only at run time",
        _ => "it is read whole (a row of it, a view of it, or a copy of it), not element by element",
    }
}

/// The rest of the block after `let v = ..;`.
fn let_scope(e: &Core, v: VarId) -> Option<&Core> {
    if let Kind::Let(x, _, rest) = &e.kind
        && *x == v
    {
        return Some(rest);
    }
    e.children().find_map(|c| let_scope(c, v))
}

/// The items that make rustc warn about `remarks` (none when there are none), under the
/// kernel's lint attributes `attrs` (its `allow`, `warn`, `deny`, `forbid` and `cfg`).
pub fn tokens(remarks: &[Remark], attrs: &[TokenStream]) -> TokenStream {
    let attrs = super::lints::level_attrs(attrs);
    let mut out = TokenStream::new();
    for r in remarks {
        let item = proc_macro2::Ident::new(r.what.item(), Span::call_site());
        let note = &r.text;
        // The call at the user's tokens: `remark` at the first, `stored` at the last, so
        // that rustc underlines the whole range.
        let m = proc_macro2::Ident::new("remark", r.span.start);
        let f = proc_macro2::Ident::new(r.what.item(), r.span.end);
        let mut sep = proc_macro2::Punct::new(':', proc_macro2::Spacing::Joint);
        sep.set_span(r.span.start);
        let mut sep2 = proc_macro2::Punct::new(':', proc_macro2::Spacing::Alone);
        sep2.set_span(r.span.start);
        let mut call = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, TokenStream::new());
        call.set_span(r.span.end);
        out.extend(quote! {
            const _: () = {
                #(#attrs)*
                mod remark {
                    #[deprecated(note = #note)]
                    pub const fn #item() {}
                }
                #(#attrs)*
                const _: () = #m #sep #sep2 #f #call;
            };
        });
    }
    out
}

#[cfg(test)]
#[path = "remarks_tests.rs"]
mod tests;
