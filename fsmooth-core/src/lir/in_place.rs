//! Buffers updated in place as streams of `&mut` elements ([`in_place_streams`]): loop IR
//! to loop IR.
//!
//! A loop that reads and writes a buffer only at its own index (a fold's state updated in
//! place, `x[j] = x[j] + alpha * p[j]`) loads and stores each element with a range check
//! LLVM cannot always drop, and a loop of checked loads and stores is not vectorised. Such a
//! buffer is as well a stream whose elements the loop takes `&mut`: `for (x, p) in
//! xs.iter_mut().zip(ps) { *x = *x + alpha * *p }`, the form hand-written Rust has.

use super::pieces::every_step;
use super::streams::{blocks_in, bound_in};
use super::visit::{bodies_mut, node_uses, own_exprs};
use super::{Base, Ex, Node, St, Stream, idents, plain_ex, same, unit_offset, walk_sts};
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
