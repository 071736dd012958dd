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
use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream};
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
    /// The deprecated item's name in `mod k::remark`: [`What::item`], numbered from the
    /// kernel's second remark of a kind on (`stored_2`).
    pub item: String,
}

impl Remark {
    /// The warning as rustc prints its first line, for kernel `kernel`.
    pub fn warning(&self, kernel: &str) -> String {
        format!(
            "use of deprecated function `{kernel}::remark::{}`: {}",
            self.item, self.text
        )
    }
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

/// What a variable the reverse sweep made holds, by the name it gives it (`middle::reverse`),
/// and the pronoun for it: `None` for the user's own and every other. `carried` is the
/// state of the fold that runs a carried fold's steps back; `states` its checkpoints.
fn swept(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "adj" => Some(("an adjoint", "it")),
        "kept" => Some(("a value of the forward pass", "it")),
        "carried" | "states" => Some(("a fold's states", "them")),
        _ => None,
    }
}

/// How a length grows: with its size names, or not at all.
fn growth(len: &Size) -> String {
    let mut names = Vec::new();
    len.names(&mut names);
    names.sort();
    names.dedup();
    match names.as_slice() {
        [] => "a fixed size".to_string(),
        [n] => format!("growing with `{n}`"),
        ns => format!(
            "growing with {}",
            ns.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
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
            Holds::Let(v) if swept(&name(*v)).is_some() => {
                let (kept, it) = swept(&name(*v)).unwrap_or_default();
                out.push(Remark {
                    what: What::Stored,
                    item: String::new(),
                    span: at(b),
                    text: format!(
                        "fsmooth: reverse mode keeps {kept} ({}, {}) in {place}: the sweep \
                         back reads {it} after the forward pass has computed {it}",
                        slots(&b.len, elem),
                        growth(&b.len)
                    ),
                });
            }
            Holds::Let(v) => {
                // A `let` the user wrote, by its name where it is written; one the compiler
                // bound (a helper's parameter, a hoisted table) by what it holds.
                let user = k.let_spans.iter().find(|(x, _)| x == v);
                let what = match (user, let_value(&k.body, *v)) {
                    _ if name(*v) == "hoisted" => "a table hoisted out of its loop".to_string(),
                    (Some(_), _) | (None, None) => format!("`{}`", name(*v)),
                    (None, Some(value)) => match Holds::value(value) {
                        Holds::Value(form) => format!("this `{form}`"),
                        _ => format!("`{}`", name(*v)),
                    },
                };
                let why = why_let(&k.body, *v, options);
                let span = match user {
                    Some((_, s)) => Sp::from(*s),
                    None => at(b),
                };
                out.push(Remark {
                    what: What::Stored,
                    item: String::new(),
                    span,
                    text: format!(
                        "fsmooth: {what} ({}) is stored in {place}: {why}",
                        slots(&b.len, elem)
                    ),
                });
            }
            Holds::State(acc) => out.push(Remark {
                what: What::Stored,
                item: String::new(),
                span: at(b),
                text: format!(
                    "fsmooth: the fold state {} ({}) is stored in {place}, updated in place on \
                     every step: no destination of the result holds it",
                    match swept(&name(*acc)) {
                        Some(_) => "reverse mode carries back".to_string(),
                        None => format!("`{}`", name(*acc)),
                    },
                    slots(&b.len, elem)
                ),
            }),
            Holds::Value("updated row") => out.push(Remark {
                what: What::RowCopied,
                item: String::new(),
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
                item: String::new(),
                span: at(b),
                text: format!(
                    "fsmooth: this `{form}` ({}) is stored in {place}: {}",
                    slots(&b.len, elem),
                    why_value(form)
                ),
            }),
            Holds::Acc { acc, first: true } => {
                let second = buffers[i + 1..].iter().any(|o| {
                    o.holds
                        == Holds::Acc {
                            acc: *acc,
                            first: false,
                        }
                });
                let state = match swept(&name(*acc)) {
                    Some(_) => "the fold state reverse mode carries back".to_string(),
                    None => format!("the fold state `{}`", name(*acc)),
                };
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
                    item: String::new(),
                    span: at(b),
                    text,
                });
            }
            // The second buffer of a pair: its first one's remark says both.
            Holds::Acc { first: false, .. } => {}
        }
    }
    for t in &planned.taken {
        // Stored, but in slots the frame already counts: the array it replaces. A `let` the
        // user wrote by its name, one the compiler bound by what it holds.
        let user = |v: VarId| k.let_spans.iter().find(|(x, _)| *x == v);
        let what = match (user(t.what), let_value(&k.body, t.what)) {
            (None, Some(value)) => match Holds::value(value) {
                Holds::Value(form) => format!("this `{form}`"),
                _ => format!("`{}`", name(t.what)),
            },
            _ => format!("`{}`", name(t.what)),
        };
        let (from, it) = match user(t.from) {
            Some(_) => (format!("`{}`", name(t.from)), format!("`{}`", name(t.from))),
            None => ("an earlier array".to_string(), "that one".to_string()),
        };
        out.push(Remark {
            what: What::Stored,
            item: String::new(),
            span: user(t.what).map_or(t.span, |(_, s)| Sp::from(*s)),
            text: format!(
                "fsmooth: {what} is stored in {place} in the place of {from} (no slots of its \
                 own): nothing reads {it} after it"
            ),
        });
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
            item: String::new(),
            span: c.span,
            text: format!(
                "fsmooth: {what} ({} elements) is copied into the output element by \
                 element: it is an array already in memory",
                length(&c.len)
            ),
        });
    }
    let mut seen: Vec<What> = Vec::new();
    for r in &mut out {
        seen.push(r.what);
        r.item = match seen.iter().filter(|w| **w == r.what).count() {
            1 => r.what.item().to_string(),
            n => format!("{}_{n}", r.what.item()),
        };
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
        _ => {
            "it is read whole (a row of it, a view of it, or a copy of it), not element by element"
        }
    }
}

/// The value `let v = ..;` binds.
fn let_value(e: &Core, v: VarId) -> Option<&Core> {
    if let Kind::Let(x, value, _) = &e.kind
        && *x == v
    {
        return Some(value);
    }
    e.children().find_map(|c| let_value(c, v))
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

/// What makes rustc warn about `remarks` for kernel `k` (nothing when there are none): the
/// items of `mod k`'s hidden `remark` module, one deprecated `const fn` per remark
/// (`stored`, `stored_2`, ..), and their uses at the user's tokens, under the kernel's lint
/// attributes (its `allow`, `warn`, `deny`, `forbid` and `cfg`). rustc then says
/// ``use of deprecated function `k::remark::stored`: fsmooth: ..``.
pub fn tokens(k: &Kernel, remarks: &[Remark]) -> (TokenStream, TokenStream) {
    if remarks.is_empty() {
        return (TokenStream::new(), TokenStream::new());
    }
    let attrs = super::lints::level_attrs(&k.attrs);
    let (mut items, mut uses) = (TokenStream::new(), TokenStream::new());
    for r in remarks {
        let name = &r.item;
        let item = Ident::new(name, Span::call_site());
        let note = &r.text;
        items.extend(quote! {
            #[deprecated(note = #note)]
            pub(crate) const fn #item() {}
        });
        // The call at the user's tokens: the path's first segment at the first, its last at
        // the last, so that rustc underlines the whole range.
        let (a, z) = (r.span.start, r.span.end);
        let kernel = Ident::new(&k.name.text, a);
        let colons = |at: Span| {
            let mut c1 = Punct::new(':', Spacing::Joint);
            c1.set_span(at);
            let mut c2 = Punct::new(':', Spacing::Alone);
            c2.set_span(at);
            quote!(#c1 #c2)
        };
        let (c1, c2) = (colons(a), colons(z));
        let remark = Ident::new("remark", z);
        let f = Ident::new(name, z);
        let mut call = Group::new(Delimiter::Parenthesis, TokenStream::new());
        call.set_span(z);
        uses.extend(quote! {
            #(#attrs)*
            const _: () = #kernel #c1 #remark #c2 #f #call;
        });
    }
    let items = quote! {
        #[doc(hidden)]
        pub(super) mod remark {
            #items
        }
    };
    (items, uses)
}

#[cfg(test)]
#[path = "remarks_tests.rs"]
mod tests;
