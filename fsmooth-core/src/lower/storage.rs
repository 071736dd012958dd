//! `storage`: the frame plan (the paper's Fig. 9, done as the allocations are made).
//!
//! Every allocation the DPS translation asks for gets a static offset in one frame, taken
//! from the region once per call. Allocations nest like a stack: an allocation lives for the
//! scope of its `let` (or its `ifold`), and siblings reuse the same slots. So empty
//! allocations take no room, consecutive ones are merged into one frame, and an allocation
//! inside a loop body gets the same offset on every iteration (hoisted out of the loop).
//! The frame's length is the peak over every path, which is exactly what the code touches.
//!
//! The frame also records every allocation ([`Buffer`]: what it holds, where, for how long,
//! and the buffers it was placed on top of), which the explain tool prints as the memory
//! plan. The translation says what each allocation holds when it asks for it ([`Frame::push`]).

use crate::front::size::{Poly, Size};
use crate::middle::ir::{Core, Kind, VarId};

/// The frame being planned, and a record of every allocation (for the memory plan the
/// explain tool prints; recording changes nothing the translation sees).
#[derive(Default)]
pub struct Frame {
    /// Every allocation made, in order.
    buffers: Vec<Buffer>,
    /// The live allocations, bottom first (indexes in `buffers`): the stack.
    live: Vec<usize>,
}

/// What a buffer of the frame holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Holds {
    /// The array a `let` binds (a hoisted table is one: `let hoisted = build(..)`).
    Let(VarId),
    /// One of the two buffers of an array `ifold`'s accumulator (`first`: the one its
    /// initial value is written to, or both when they are one allocation, with `storage =
    /// "heap"`); the loop swaps them every iteration.
    Acc {
        /// The accumulator.
        acc: VarId,
        /// The first of the two.
        first: bool,
    },
    /// An array expression that is not in memory yet, materialised where it is read (an
    /// element or row of it, or a copy of it); the form of the expression.
    Value(&'static str),
}

impl Holds {
    /// An array expression materialised where it is read.
    pub fn value(e: &Core) -> Holds {
        Holds::Value(match &e.kind {
            Kind::Build(..) => "build",
            Kind::Ifold(..) => "ifold",
            Kind::Scan(..) => "scan",
            Kind::Array(_) => "array literal",
            Kind::If(..) => "if",
            Kind::Let(..) => "block",
            _ => "array",
        })
    }
}

/// One allocation of the frame, as the planner placed it.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// What it holds.
    pub holds: Holds,
    /// Its first slot.
    pub offset: Size,
    /// How many slots.
    pub len: Size,
    /// The buffers live when it was made (their indexes in [`Frame::buffers`], bottom
    /// first): it starts where the last of them ends, and this is the rule that placed it.
    pub above: Vec<usize>,
    /// How many buffers had been made when it was freed (`None`: never freed): it is live
    /// together with the buffers from its own index up to this one, excluded.
    pub freed: Option<usize>,
}

impl Frame {
    /// The offset of the next allocation: the lengths of the live allocations, summed.
    pub fn top(&self) -> Size {
        self.live
            .iter()
            .map(|&b| self.buffers[b].len.clone())
            .reduce(Size::plus)
            .unwrap_or(Size::Lit(0))
    }

    /// Allocate `len` slots for what `holds`; returns the offset. Freed by [`Frame::pop`].
    pub fn push(&mut self, len: Size, holds: Holds) -> Size {
        let off = self.top();
        self.buffers.push(Buffer {
            holds,
            offset: off.clone(),
            len,
            above: self.live.clone(),
            freed: None,
        });
        self.live.push(self.buffers.len() - 1);
        off
    }

    /// Free the most recent allocation.
    pub fn pop(&mut self) {
        self.truncate(self.depth().saturating_sub(1));
    }

    /// How many allocations are live (to restore after a scope).
    pub fn depth(&self) -> usize {
        self.live.len()
    }

    /// Free allocations down to `depth`.
    pub fn truncate(&mut self, depth: usize) {
        let made = self.buffers.len();
        for b in self.live.drain(depth.min(self.live.len())..) {
            self.buffers[b].freed = Some(made);
        }
    }

    /// The candidate peaks; the frame length is their maximum (0 if none).
    pub fn peaks(&self) -> Vec<Size> {
        peaks_of(&self.buffers)
    }

    /// Every allocation made, in order.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }
}

/// Every `offset + length` the allocations reach, in the order they were made (empty
/// allocations take no room and reach nothing): the frame's length is their maximum.
pub fn peaks_of(buffers: &[Buffer]) -> Vec<Size> {
    buffers
        .iter()
        .filter(|b| b.len.as_const() != Some(0))
        .map(|b| Size::plus(b.offset.clone(), b.len.clone()))
        .collect()
}

/// The peaks with duplicates (as polynomials) and those dominated by a constant-larger
/// candidate removed, so `scratch_len` stays short.
pub fn distinct_peaks(peaks: &[Size]) -> Vec<Size> {
    // Each peak's polynomial is computed once (they were recomputed for every pair).
    let mut out: Vec<(Size, Poly)> = Vec::new();
    for p in peaks {
        let poly = p.poly();
        if out.iter().any(|(_, q)| *q == poly) {
            continue;
        }
        let folded = p.fold();
        let folded_poly = folded.poly();
        out.push((folded, folded_poly));
    }
    // Drop any candidate that another is never below: their difference is a polynomial
    // with non-negative coefficients over size names (sizes are never negative).
    let dominated = |a: &Poly, b: &Poly| {
        b.minus(a).coeffs().all(|(m, c)| {
            c >= 0.0
                && m.iter()
                    .all(|x| matches!(x, crate::front::size::Atom::Name(_)))
        })
    };
    let mut keep: Vec<Size> = Vec::new();
    for (i, (p, pp)) in out.iter().enumerate() {
        let beaten = out
            .iter()
            .enumerate()
            .any(|(j, (_, qp))| j != i && dominated(pp, qp) && !(dominated(qp, pp) && j > i));
        if !beaten {
            keep.push(p.clone());
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_share_slots_and_peaks_are_kept() {
        let n = Size::Name("n".into());
        let mut f = Frame::default();
        let a = f.push(n.clone(), Holds::Value("array"));
        assert_eq!(a.as_const(), Some(0));
        let b = f.push(Size::Lit(3), Holds::Value("array"));
        assert!(b.same(&n));
        f.pop();
        let c = f.push(Size::Lit(5), Holds::Value("array"));
        assert!(c.same(&n));
        f.pop();
        f.pop();
        let peaks = distinct_peaks(&f.peaks());
        // n, n + 3 and n + 5: only n + 5 matters.
        assert_eq!(peaks.len(), 1);
        assert!(peaks[0].same(&Size::plus(n, Size::Lit(5))));
    }
}
