//! `storage`: the frame plan (the paper's Fig. 9, done as the allocations are made).
//!
//! Every allocation the DPS translation asks for gets a static offset in one frame, taken
//! from the region once per call. Allocations nest like a stack: an allocation lives for the
//! scope of its `let` (or its `ifold`), and siblings reuse the same slots. So empty
//! allocations take no room, consecutive ones are merged into one frame, and an allocation
//! inside a loop body gets the same offset on every iteration (hoisted out of the loop).
//! The frame's length is the peak over every path, which is exactly what the code touches.
//!
//! The frame is planned per element type (LANGUAGE.md sections 10 and 11): one stack of
//! allocations for each of `f64`, `f32` and `usize`, each in its own part of the frame, laid
//! out `[f64 slots | f32 slots | usize slots]` in 8-byte slots ([`Peaks`]).
//!
//! The frame also records every allocation ([`Buffer`]: what it holds, where, for how long,
//! and the buffers it was placed on top of), which the explain tool prints as the memory
//! plan. The translation says what each allocation holds when it asks for it ([`Frame::push`]).

use crate::front::ast::Sp;
use crate::front::size::{Poly, Size, const_size};
use crate::lir::{FRAME_PARTS, Scalar};
use crate::middle::ir::{Core, Kind, VarId};
use proc_macro2::TokenStream;
use quote::quote;

/// The frame being planned, and a record of every allocation (for the memory plan the
/// explain tool prints; recording changes nothing the translation sees).
#[derive(Default)]
pub struct Frame {
    /// Every allocation made, in order.
    buffers: Vec<Buffer>,
    /// The live allocations, bottom first (indexes in `buffers`): the stack.
    live: Vec<usize>,
    /// Every copy into an output, in order.
    pub copies: Vec<Copied>,
    /// Every array stored in the frame place of one that is dead
    /// (`lower/overwrite.rs`), in order.
    pub taken: Vec<Taken>,
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
    /// The one buffer of an array `ifold`'s state updated in place (LANGUAGE.md section 13),
    /// where no destination holds it.
    State(VarId),
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
    /// Its element type: the part of the frame it is in.
    pub elem: Scalar,
    /// Its first element in its part.
    pub offset: Size,
    /// How many elements.
    pub len: Size,
    /// The buffers of its part live when it was made (their indexes in [`Frame::buffers`],
    /// bottom first): it starts where the last of them ends, and this is the rule that
    /// placed it.
    pub above: Vec<usize>,
    /// How many buffers had been made when it was freed (`None`: never freed): it is live
    /// together with the buffers from its own index up to this one, excluded.
    pub freed: Option<usize>,
    /// The user's tokens of the expression it holds (`None` in tests): where a remark about
    /// it points ([`crate::emit::remarks`]).
    pub span: Option<Sp>,
}

/// A copy of an array already in memory (a parameter, a row, a stored array) into an
/// output, element by element: the remark `copied` ([`crate::emit::remarks`]).
#[derive(Clone, Debug)]
pub struct Copied {
    /// What is copied, when it is a variable.
    pub what: Option<VarId>,
    /// How many elements.
    pub len: Size,
    /// The user's tokens of the copied expression.
    pub span: Sp,
}

/// An array stored in the frame place of an earlier one that nothing reads after it.
#[derive(Clone, Debug)]
pub struct Taken {
    /// The array stored.
    pub what: VarId,
    /// The array whose place it takes.
    pub from: VarId,
    /// The user's tokens of the stored array's value.
    pub span: Sp,
}

impl Frame {
    /// The offset of the next allocation of element type `elem`: the lengths of the live
    /// allocations of that type, summed.
    pub fn top(&self, elem: Scalar) -> Size {
        self.live
            .iter()
            .filter(|&&b| self.buffers[b].elem == elem)
            .map(|&b| self.buffers[b].len.clone())
            .reduce(Size::plus)
            .unwrap_or(Size::Lit(0))
    }

    /// Allocate `len` elements of type `elem` for what `holds`; returns the offset in the
    /// frame's part of that type. Freed by [`Frame::pop`].
    pub fn push(&mut self, len: Size, holds: Holds, elem: Scalar, span: Option<Sp>) -> Size {
        let off = self.top(elem);
        let above = self
            .live
            .iter()
            .copied()
            .filter(|&b| self.buffers[b].elem == elem)
            .collect();
        self.buffers.push(Buffer {
            holds,
            elem,
            offset: off.clone(),
            len,
            above,
            freed: None,
            span,
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

    /// The candidate peaks of the part of type `elem`; its length is their maximum (0 if
    /// none).
    pub fn peaks(&self, elem: Scalar) -> Vec<Size> {
        peaks_of(&self.buffers, elem)
    }

    /// Every allocation made, in order.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }
}

/// Every `offset + length` the allocations of type `elem` reach, in the order they were made
/// (empty allocations take no room and reach nothing): the length of the frame's part of
/// that type is their maximum.
pub fn peaks_of(buffers: &[Buffer], elem: Scalar) -> Vec<Size> {
    buffers
        .iter()
        .filter(|b| b.elem == elem && b.len.as_const() != Some(0))
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

/// The frame's length, part by part: for each element type of [`FRAME_PARTS`] (`f64`, `f32`,
/// `usize`), the candidate peaks of its part, whose maximum is the part's element count.
/// The frame is `f64 count + ceil(f32 count / 2) + usize count` 8-byte slots.
#[derive(Clone, Debug, Default)]
pub struct Peaks {
    /// The candidates of each part, in the order of [`FRAME_PARTS`].
    pub parts: [Vec<Size>; 3],
}

impl Peaks {
    /// The distinct peaks of each part of the buffers (see [`distinct_peaks`]).
    pub fn of(buffers: &[Buffer]) -> Peaks {
        Peaks {
            parts: FRAME_PARTS.map(|t| distinct_peaks(&peaks_of(buffers, t))),
        }
    }

    /// The candidates of the part of type `elem` (none for `bool`).
    pub fn part(&self, elem: Scalar) -> &[Size] {
        match FRAME_PARTS.iter().position(|t| *t == elem) {
            Some(k) => &self.parts[k],
            None => &[],
        }
    }

    /// True when the frame has parts other than `f64`'s (it is then cut into one slice
    /// per type).
    pub fn typed(&self) -> bool {
        self.parts[1..].iter().any(|p| !p.is_empty())
    }

    /// True when no part has a candidate (no frame).
    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(Vec::is_empty)
    }

    /// The frame's slots at the given size values, with checked arithmetic (`None` when a
    /// size is missing or a part fails).
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<u64>) -> Option<u64> {
        let mut counts = [0u64; 3];
        for (c, part) in counts.iter_mut().zip(&self.parts) {
            *c = part.iter().try_fold(0, |m, p| Some(m.max(p.eval(env)?)))?;
        }
        counts[0]
            .checked_add(counts[1].div_ceil(2))?
            .checked_add(counts[2])
    }

    /// The frame's slots in a `const fn` (`scratch_len`): the largest candidate of each
    /// part, saturating, and the parts' slots added up (the f64 part alone as before when
    /// there is no other).
    pub fn const_tokens(&self) -> TokenStream {
        let max = |p: &[Size]| {
            p.iter()
                .map(const_size)
                .reduce(|a, b| quote!(::fsmooth::__rt::max(#a, #b)))
                .unwrap_or(quote!(0usize))
        };
        if !self.typed() {
            return max(&self.parts[0]);
        }
        let [a, b, c] = [
            max(&self.parts[0]),
            max(&self.parts[1]),
            max(&self.parts[2]),
        ];
        quote!(::fsmooth::__rt::slots(#a, #b, #c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siblings_share_slots_and_peaks_are_kept() {
        let n = Size::Name("n".into());
        let mut f = Frame::default();
        let a = f.push(n.clone(), Holds::Value("array"), Scalar::F64, None);
        assert_eq!(a.as_const(), Some(0));
        let b = f.push(Size::Lit(3), Holds::Value("array"), Scalar::F64, None);
        assert!(b.same(&n));
        f.pop();
        let c = f.push(Size::Lit(5), Holds::Value("array"), Scalar::F64, None);
        assert!(c.same(&n));
        f.pop();
        f.pop();
        let peaks = distinct_peaks(&f.peaks(Scalar::F64));
        // n, n + 3 and n + 5: only n + 5 matters.
        assert_eq!(peaks.len(), 1);
        assert!(peaks[0].same(&Size::plus(n, Size::Lit(5))));
    }

    #[test]
    fn each_element_type_has_its_own_stack() {
        let n = Size::Name("n".into());
        let mut f = Frame::default();
        assert_eq!(
            f.push(n.clone(), Holds::Value("a"), Scalar::F64, None)
                .as_const(),
            Some(0)
        );
        // An f32 buffer on top of an f64 one starts its own part at 0, and a usize one too.
        assert_eq!(
            f.push(Size::Lit(3), Holds::Value("b"), Scalar::F32, None)
                .as_const(),
            Some(0)
        );
        assert_eq!(
            f.push(Size::Lit(2), Holds::Value("c"), Scalar::Usize, None)
                .as_const(),
            Some(0)
        );
        let d = f.push(Size::Lit(4), Holds::Value("d"), Scalar::F32, None);
        assert_eq!(d.as_const(), Some(3));
        assert_eq!(f.buffers()[3].above, vec![1]);
        f.truncate(0);
        let p = Peaks::of(f.buffers());
        assert!(p.typed());
        // f64: n; f32: 3 + 4 = 7 (4 slots); usize: 2.
        assert_eq!(p.eval(&|_| Some(10)), Some(10 + 4 + 2));
        assert_eq!(
            p.const_tokens().to_string(),
            quote!(::fsmooth::__rt::slots(n, 7usize, 2usize)).to_string()
        );
    }
}
