//! `storage`: the frame plan (the paper's Fig. 9, done as the allocations are made).
//!
//! Every allocation the DPS translation asks for gets a static offset in one frame, taken
//! from the region once per call. Allocations nest like a stack: an allocation lives for the
//! scope of its `let` (or its `ifold`), and siblings reuse the same slots. So empty
//! allocations take no room, consecutive ones are merged into one frame, and an allocation
//! inside a loop body gets the same offset on every iteration (hoisted out of the loop).
//! The frame's length is the peak over every path, which is exactly what the code touches.

use crate::front::size::{Poly, Size};

/// The frame being planned.
#[derive(Default)]
pub struct Frame {
    /// The current top of the stack, in f64 slots.
    top: Vec<Size>,
    /// Every `offset + length` reached: the frame length is their maximum.
    peaks: Vec<Size>,
}

impl Frame {
    /// The offset of the next allocation.
    pub fn top(&self) -> Size {
        self.top
            .iter()
            .cloned()
            .reduce(Size::plus)
            .unwrap_or(Size::Lit(0))
    }

    /// Allocate `len` slots; returns the offset. Freed by [`Frame::pop`].
    pub fn push(&mut self, len: Size) -> Size {
        let off = self.top();
        if len.as_const() != Some(0) {
            self.peaks.push(Size::plus(off.clone(), len.clone()));
        }
        self.top.push(len);
        off
    }

    /// Free the most recent allocation.
    pub fn pop(&mut self) {
        self.top.pop();
    }

    /// How many allocations are live (to restore after a scope).
    pub fn depth(&self) -> usize {
        self.top.len()
    }

    /// Free allocations down to `depth`.
    pub fn truncate(&mut self, depth: usize) {
        self.top.truncate(depth);
    }

    /// The candidate peaks; the frame length is their maximum (0 if none).
    pub fn peaks(&self) -> &[Size] {
        &self.peaks
    }
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
        let a = f.push(n.clone());
        assert_eq!(a.as_const(), Some(0));
        let b = f.push(Size::Lit(3));
        assert!(b.same(&n));
        f.pop();
        let c = f.push(Size::Lit(5));
        assert!(c.same(&n));
        f.pop();
        f.pop();
        let peaks = distinct_peaks(f.peaks());
        // n, n + 3 and n + 5: only n + 5 matters.
        assert_eq!(peaks.len(), 1);
        assert!(peaks[0].same(&Size::plus(n, Size::Lit(5))));
    }
}
