//! Loads fixed during a loop, made once before it ([`invariant_loads`]): loop IR to loop IR.

use super::streams::{blocks_in, bound_in};
use super::visit::{bodies_mut, own_exprs};
use super::{Base, Ex, Node, St, Stream, idents, puts, walk_ex, walk_sts, writes};
use proc_macro2::Ident;

/// Every `for` loop and fill under `sts` (inner loops first): a `let` of its step, outside
/// the step's branches and inner loops, whose value is loads and offset arithmetic of names
/// fixed during the loop from buffers the loop does not write, is bound once before the
/// loop. The translation reads a row bound before a loop where each element is used (a
/// view, not a copy): the hand model's `let x = base_positions[correspondences[j]]` before
/// its fold over the bones is three loads in each step. LLVM usually moves them out itself,
/// but not always (in the skinning, inlined into a larger caller, it kept them in the loop:
/// 19 instructions a step). Moving them is safe whatever the loop: a load cannot fail (one
/// the compiler proved; a row load's fallback is a row of zeros), so a loop of no steps only
/// costs the load.
pub fn invariant_loads(sts: &mut Vec<St>) {
    let mut i = 0;
    while i < sts.len() {
        for e in own_exprs(&mut sts[i]) {
            blocks_in(e, &mut |b| invariant_loads(b));
        }
        for b in bodies_mut(&mut sts[i]) {
            invariant_loads(b);
        }
        let out = match &mut sts[i] {
            St::For {
                var, streams, body, ..
            } => take_invariant(var, streams, None, body),
            St::Fill {
                base,
                var,
                streams,
                body,
                ..
            } => take_invariant(var, streams, Some(&*base), body),
            _ => Vec::new(),
        };
        let n = out.len();
        sts.splice(i..i, out);
        i += n + 1;
    }
}

/// The `let`s of the loop's step that [`invariant_loads`] moves, taken out of `body` in
/// their order.
fn take_invariant(
    var: &Ident,
    streams: &[Stream],
    fill: Option<&Base>,
    body: &mut Vec<St>,
) -> Vec<St> {
    // Memory the step takes or cuts: loads from the frame stay where they are.
    let mut frame_moves = false;
    walk_sts(body, &mut |n| {
        frame_moves |= matches!(
            n,
            Node::St(
                St::Alloc { .. }
                    | St::Heap { .. }
                    | St::Local { .. }
                    | St::Frame { .. }
                    | St::Pieces { .. }
                    | St::Rows { .. }
                    | St::Segment { .. }
                    | St::Restate { .. }
                    | St::ParSum { .. }
                    | St::ParRows { .. }
            )
        );
    });
    let mut inside = bound_in(var, body);
    inside.extend(streams.iter().map(|s| s.elem.clone()));
    // Buffers a stream of the loop or of a loop inside it updates in place.
    let mut put: Vec<Base> = streams
        .iter()
        .filter(|s| puts(body, &s.elem))
        .map(|s| s.base.clone())
        .collect();
    walk_sts(body, &mut |n| {
        if let Node::Stream(s) = n
            && puts(body, &s.elem)
        {
            put.push(s.base.clone());
        }
    });
    // The buffers the step reads and nothing in the loop writes.
    let mut read: Vec<Base> = Vec::new();
    walk_sts(body, &mut |n| {
        if let Node::Ex(Ex::Ld(b, _) | Ex::LdRow(b, ..)) = n
            && !read.contains(b)
        {
            read.push(b.clone());
        }
    });
    read.retain(|b| {
        let kind = match b {
            Base::Param(_) | Base::Out | Base::OutPart(_) => true,
            Base::Scratch(_) | Base::Heap(_) | Base::Local(_) => !frame_moves,
            Base::Row(_) | Base::Piece(_) => false,
        };
        kind && fill != Some(b) && !put.contains(b) && !writes(body, b)
    });
    let fixed = |b: &Base| read.contains(b);
    let mut moved = Vec::new();
    take_from(body, &inside, &fixed, &mut moved);
    moved
}

/// Take the movable `let`s out of `sts` (and of the blocks it holds at its top, and those
/// that compute a value it assigns or binds), in order: a `let` reading one moved before it
/// moves too.
fn take_from(
    sts: &mut Vec<St>,
    inside: &[Ident],
    fixed: &dyn Fn(&Base) -> bool,
    moved: &mut Vec<St>,
) {
    let mut k = 0;
    while k < sts.len() {
        match &mut sts[k] {
            St::Block(b) => {
                take_from(b, inside, fixed, moved);
                k += 1;
            }
            // A value computed by a block at every step (a scalar fold's `acc = { .. }`).
            St::Assign(_, Ex::Block(b, _))
            | St::Slot(Ex::Block(b, _))
            | St::SlotAdd(Ex::Block(b, _))
            | St::Let {
                val: Ex::Block(b, _),
                ..
            } => {
                take_from(b, inside, fixed, moved);
                k += 1;
            }
            St::Let {
                mutable: false,
                val,
                ..
            } if movable(val, fixed)
                && idents(val).iter().all(|x| {
                    !inside.contains(x)
                        || moved
                            .iter()
                            .any(|m| matches!(m, St::Let { id, .. } if id == x))
                }) =>
            {
                moved.push(sts.remove(k));
            }
            _ => k += 1,
        }
    }
}

/// True when `e` is loads from fixed buffers and `usize` offset arithmetic only: nothing
/// that can fail, nothing costly to compute on a loop of no steps.
fn movable(e: &Ex, fixed: &dyn Fn(&Base) -> bool) -> bool {
    let mut ok = matches!(e, Ex::Ld(..) | Ex::LdRow(..));
    walk_ex(e, &mut |n| {
        if let Node::Ex(x) = n {
            ok &= match x {
                Ex::Ld(b, _) | Ex::LdRow(b, ..) => fixed(b),
                Ex::Var(_) | Ex::Usize(_) | Ex::Wrap(..) => true,
                _ => false,
            };
        }
    });
    ok
}
