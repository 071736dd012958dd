//! `storage`: the frame plan (the paper's Fig. 9, done as the allocations are made).
//!
//! Every allocation the DPS translation asks for gets a static offset in one frame, taken
//! from the region once per call. Allocations nest like a stack: an allocation lives for the
//! scope of its `let` (or its `ifold`), and siblings reuse the same slots. So empty
//! allocations take no room, consecutive ones are merged into one frame, and an allocation
//! inside a loop body gets the same offset on every iteration (hoisted out of the loop).
//! The frame's length is the peak over every path, which is exactly what the code touches.

use crate::front::size::Size;
use crate::lir::{Base, Ex, St};
use crate::lower::dps::{Dps, View};

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
    let mut out: Vec<Size> = Vec::new();
    for p in peaks {
        if out.iter().any(|q| q.same(p)) {
            continue;
        }
        out.push(p.fold());
    }
    // Drop any candidate that another is never below: their difference is a polynomial
    // with non-negative coefficients over size names (sizes are never negative).
    let dominated = |a: &Size, b: &Size| {
        Size::minus(b.clone(), a.clone())
            .poly()
            .coeffs()
            .all(|(m, c)| {
                c >= 0.0
                    && m.iter()
                        .all(|x| matches!(x, crate::front::size::Atom::Name(_)))
            })
    };
    let mut keep: Vec<Size> = Vec::new();
    for (i, p) in out.iter().enumerate() {
        let beaten = out
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && dominated(p, q) && !(dominated(q, p) && j > i));
        if !beaten {
            keep.push(p.clone());
        }
    }
    keep
}

impl Dps<'_> {
    /// Take room for an array of `dims` in the frame: the allocation's marker and its view.
    pub(super) fn alloc(&mut self, dims: &[Size]) -> (St, View) {
        let len = dims
            .iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1));
        let off = self.frame.push(len.clone());
        if let Some(k) = self.heap.as_mut() {
            // A buffer of its own, made here.
            let id = *k;
            *k += 1;
            let marker = St::Heap {
                id,
                len: self.sizes.get(&len),
            };
            let view = View {
                base: Base::Heap(id),
                off: None,
                dims: dims.to_vec(),
            };
            return (marker, view);
        }
        let off = if off.as_const() == Some(0) {
            None
        } else {
            Some(self.sizes.get(&off))
        };
        // The length is only for the executor: `Const` adds nothing to the printed code.
        let marker = St::Alloc {
            off: off.clone().unwrap_or(Ex::Usize(0)),
            len: Ex::Const(len),
        };
        let view = View {
            base: Base::Scratch,
            off,
            dims: dims.to_vec(),
        };
        (marker, view)
    }

    /// Two buffers of `dims` for a double-buffered accumulator: two frame slots, or one heap
    /// buffer of twice the length (so that swapping offsets swaps them).
    pub(super) fn alloc_pair(&mut self, dims: &[Size]) -> (Vec<St>, View, View) {
        if self.heap.is_some() {
            let mut two = vec![Size::Lit(2)];
            two.extend(dims.iter().cloned());
            let (m, w) = self.alloc(&two);
            let len = dims
                .iter()
                .cloned()
                .reduce(Size::times)
                .unwrap_or(Size::Lit(1));
            let second = View {
                base: w.base.clone(),
                off: Some(self.sizes.get(&len)),
                dims: dims.to_vec(),
            };
            let first = View {
                dims: dims.to_vec(),
                ..w
            };
            return (vec![m], first, second);
        }
        let (ma, a) = self.alloc(dims);
        let (mb, b) = self.alloc(dims);
        (vec![ma, mb], a, b)
    }
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
