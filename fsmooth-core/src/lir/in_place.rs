//! Buffers updated in place as streams of `&mut` elements ([`in_place_streams`]): loop IR
//! to loop IR.
//!
//! A loop that reads and writes a buffer only at its own index (a fold's state updated in
//! place, `x[j] = x[j] + alpha * p[j]`) loads and stores each element with a range check
//! LLVM cannot always drop, and a loop of checked loads and stores is not vectorised. Such a
//! buffer is as well a stream whose elements the loop takes `&mut`: `for (x, p) in
//! xs.iter_mut().zip(ps) { *x = *x + alpha * *p }`, the form hand-written Rust has. An
//! output a loop only stores, by rows of a literal width (`build(n, |i| [x, y])`), is a
//! stream of `&mut [T; w]` rows in the same way.

use super::pieces::every_step;
use super::streams::{blocks_in, bound_in};
use super::visit::{bodies_mut, node_uses, own_exprs};
use super::{
    Base, Ex, Node, St, Stream, Wrap, idents, plain_ex, same, unit_offset, wadd, walk_sts,
};
use proc_macro2::Ident;
use quote::format_ident;

/// Every `for` loop and fill under `sts` (outermost first): each output, local array or piece of the
/// frame it reads and writes only at its index, and stores at every step, becomes a stream
/// of `&mut` elements ([`St::Put`]). A buffer an enclosing loop streams is left alone.
pub fn in_place_streams(sts: &mut [St]) {
    let mut named = 0;
    visit(sts, &mut Vec::new(), &mut named);
}

fn visit(sts: &mut [St], held: &mut Vec<Base>, named: &mut usize) {
    for s in sts.iter_mut() {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| visit(b, held, named));
        }
        let depth = held.len();
        let own = match s {
            St::For {
                var, streams, body, ..
            } => Some((var, streams, body, None)),
            St::Fill {
                var,
                streams,
                body,
                base,
                ..
            } => Some((var, streams, body, Some(base.clone()))),
            _ => None,
        };
        if let Some((var, streams, body, filled)) = own {
            for b in candidates(body) {
                if held.contains(&b)
                    || filled.as_ref() == Some(&b)
                    || streams.iter().any(|st| st.base == b)
                {
                    continue;
                }
                if let Some(start) = in_place_slot(body, &b, var) {
                    *named += 1;
                    let elem = format_ident!("__pm{}", named);
                    to_puts(body, &b, &elem);
                    streams.push(Stream {
                        base: b,
                        start,
                        elem,
                        width: None,
                    });
                }
            }
            if filled.is_none() {
                for b in stored_outputs(body) {
                    if held.contains(&b) || streams.iter().any(|st| st.base == b) {
                        continue;
                    }
                    if let Some((start, width)) = row_slots(body, &b, var) {
                        *named += 1;
                        let elem = format_ident!("__pr{}", named);
                        to_row_stores(body, &b, &elem, width, var);
                        streams.push(Stream {
                            base: b,
                            start,
                            elem,
                            width: Some(Ex::Usize(width)),
                        });
                    }
                }
            }
            held.extend(streams.iter().map(|st| st.base.clone()));
            held.extend(filled);
        }
        for body in bodies_mut(s) {
            visit(body, held, named);
        }
        held.truncate(depth);
    }
}

/// The buffers `body` stores to that may be updated in place: outputs, local arrays and
/// pieces of the frame (the frame itself is one buffer for every allocation).
fn candidates(body: &[St]) -> Vec<Base> {
    let mut out: Vec<Base> = Vec::new();
    for s in body {
        if let St::Store(b @ (Base::Out | Base::OutPart(_) | Base::Local(_) | Base::Piece(_)), ..) =
            s
            && !out.contains(b)
        {
            out.push(b.clone());
        }
    }
    out
}

/// The slot at index 0 of buffer `b` when `body`, a loop over `var`, uses `b` only to load and
/// store at `start + var` for one `start` fixed during the loop, and stores there at every
/// step (so the whole range is proven in bounds).
pub(super) fn in_place_slot(body: &mut [St], b: &Base, var: &Ident) -> Option<Ex> {
    let inside = bound_in(var, body);
    let invariant = |x: &Ex| plain_ex(x) && idents(x).iter().all(|i| !inside.contains(i));
    let (mut start, mut ok, mut uses, mut matched) = (None::<Ex>, true, 0, 0);
    walk_sts(body, &mut |n| {
        uses += usize::from(node_uses(n, b));
        if matches!(n, Node::St(St::Restate { base, .. }) if base == b) {
            ok = false;
        }
        let at: &Ex = match n {
            Node::Ex(Ex::Ld(x, at)) if x == b => at,
            Node::St(St::Store(x, at, _)) if x == b => at,
            _ => return,
        };
        matched += 1;
        let Some(s) = unit_offset(at, var).map(|s| s.unwrap_or(Ex::Usize(0))) else {
            ok = false;
            return;
        };
        ok &= invariant(&s) && start.as_ref().is_none_or(|t| same(t, &s));
        start.get_or_insert(s);
    });
    // Loaded at every step too: a buffer only stored is a fill's.
    let mut loaded = false;
    every_step(body, &mut |e| loaded |= matches!(e, Ex::Ld(x, _) if x == b));
    let stored = body.iter().any(|s| matches!(s, St::Store(x, ..) if x == b));
    (ok && loaded && stored && uses == matched).then_some(start?)
}

/// The outputs `body` stores to anywhere.
fn stored_outputs(body: &[St]) -> Vec<Base> {
    let mut out: Vec<Base> = Vec::new();
    walk_sts(body, &mut |n| {
        if let Node::St(St::Store(b @ (Base::Out | Base::OutPart(_)), ..)) = n
            && !out.contains(b)
        {
            out.push(b.clone());
        }
    });
    out
}

/// A store's index `start + var * width + k` (the terms in any order, `k < width` a literal,
/// `start` fixed during the loop): `(start, width, k)`.
fn strided_slot(
    at: &Ex,
    var: &Ident,
    invariant: &dyn Fn(&Ex) -> bool,
) -> Option<(Ex, usize, usize)> {
    fn terms<'a>(e: &'a Ex, out: &mut Vec<&'a Ex>) {
        match e {
            Ex::Wrap(Wrap::Add, a, b) => {
                terms(a, out);
                terms(b, out);
            }
            e => out.push(e),
        }
    }
    let mut ts = Vec::new();
    terms(at, &mut ts);
    let (mut width, mut k, mut rest) = (None, 0usize, Vec::new());
    for t in ts {
        match t {
            Ex::Wrap(Wrap::Mul, a, b) if matches!(&**a, Ex::Var(v) if v == var) => match &**b {
                Ex::Usize(w) if width.is_none() => width = Some(*w),
                _ => return None,
            },
            Ex::Wrap(Wrap::Mul, a, b) if matches!(&**b, Ex::Var(v) if v == var) => match &**a {
                Ex::Usize(w) if width.is_none() => width = Some(*w),
                _ => return None,
            },
            Ex::Usize(c) => k = k.checked_add(*c)?,
            t if invariant(t) => rest.push(t.clone()),
            _ => return None,
        }
    }
    let width = width.filter(|w| *w >= 2 && k < *w)?;
    let start = rest.into_iter().reduce(wadd).unwrap_or(Ex::Usize(0));
    Some((start, width, k))
}

/// The start and width of the rows of output `b` that `body`, a loop over `var`, stores each
/// step, when it only stores to `b`, at `start + var * width + k` for literals `k < width`
/// and one `start` fixed during the loop, and stores every element of row `var` at every
/// step (so every row the loop takes is proven in bounds, whole). A `build` of rows of literal width into an
/// output (`build(n, |i| [x, y])`, points) then writes `&mut [T; width]` rows, which need no
/// range test per store and which LLVM vectorises, as hand-written code over
/// `chunks_exact_mut` does.
fn row_slots(body: &[St], b: &Base, var: &Ident) -> Option<(Ex, usize)> {
    if !matches!(b, Base::Out | Base::OutPart(_)) {
        return None;
    }
    let inside = bound_in(var, body);
    let invariant = |x: &Ex| plain_ex(x) && idents(x).iter().all(|i| !inside.contains(i));
    let (mut found, mut ok, mut uses, mut stores) = (None::<(Ex, usize)>, true, 0, 0);
    walk_sts(body, &mut |n| {
        uses += usize::from(node_uses(n, b));
        let Node::St(St::Store(x, at, _)) = n else {
            return;
        };
        if x != b {
            return;
        }
        stores += 1;
        match strided_slot(at, var, &invariant) {
            Some((s, w, _)) => {
                ok &= found.as_ref().is_none_or(|(t, v)| *v == w && same(t, &s));
                found.get_or_insert((s, w));
            }
            None => ok = false,
        }
    });
    // Row `var` is stored whole at every step, each of its elements among the statements
    // every step runs: so every row the loop takes is proven in bounds, the last one whole.
    fn unconditional<'a>(sts: &'a [St], out: &mut Vec<&'a St>) {
        for s in sts {
            match s {
                St::Block(inner) => unconditional(inner, out),
                s => out.push(s),
            }
        }
    }
    let mut top = Vec::new();
    unconditional(body, &mut top);
    let (start, w) = found?;
    let every = (0..w).all(|k0| {
        top.iter().any(|s| {
            matches!(s, St::Store(x, at, _) if x == b
                && strided_slot(at, var, &invariant).is_some_and(|(t, v, k)| v == w && k == k0 && same(&t, &start)))
        })
    });
    (ok && every && uses == stores).then_some((start, w))
}

/// In `sts`, the stores to `b` at `start + var * width + k` as stores to element `k` of the
/// row stream `row`.
fn to_row_stores(sts: &mut [St], b: &Base, row: &Ident, width: usize, var: &Ident) {
    for s in sts.iter_mut() {
        if let St::Store(x, at, v) = s
            && x == b
            && let Some((_, w, k)) = strided_slot(at, var, &|_| true)
            && w == width
        {
            *s = St::Store(Base::Row(row.clone()), Ex::Usize(k), v.clone());
        }
        for e in own_exprs(s) {
            blocks_in(e, &mut |inner| to_row_stores(inner, b, row, width, var));
        }
        for body in bodies_mut(s) {
            to_row_stores(body, b, row, width, var);
        }
    }
}

/// In `sts`, the loads and stores of `b` as reads and stores of the stream element `elem`.
fn to_puts(sts: &mut [St], b: &Base, elem: &Ident) {
    for s in sts.iter_mut() {
        if let St::Store(x, _, v) = s
            && x == b
        {
            *s = St::Put(elem.clone(), v.clone());
        }
        for e in own_exprs(s) {
            loads_to_elem(e, b, elem);
            blocks_in(e, &mut |inner| to_puts(inner, b, elem));
        }
        for body in bodies_mut(s) {
            to_puts(body, b, elem);
        }
    }
}

fn loads_to_elem(e: &mut Ex, b: &Base, elem: &Ident) {
    super::rewrite_ex(e, &mut |x| {
        if matches!(x, Ex::Ld(y, _) if y == b) {
            *x = Ex::Elem(elem.clone());
            return true;
        }
        false
    });
}
