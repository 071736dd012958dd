//! The allocations the translation takes: room in the frame ([`crate::lower::storage`]), or a
//! heap buffer of its own with `storage = "heap"`.

use crate::front::ast::Sp;
use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St};
use crate::lower::dps::{Dps, View};
use crate::lower::storage::Holds;
use crate::middle::ir::VarId;

/// The longest state kept in local arrays rather than the frame: 16 elements (a Welford
/// state of 16 features, Goertzel's 8 frequencies twice over).
pub(super) const LOCAL_MAX: u64 = 16;

impl Dps<'_> {
    /// Take room for an array of `dims` of element type `elem` in the frame's part of that
    /// type, for what `holds` (the memory plan's label): the allocation's marker and its view.
    pub(super) fn alloc(
        &mut self,
        elem: Scalar,
        dims: &[Size],
        holds: Holds,
        span: Sp,
    ) -> (St, View) {
        let len = Size::product(dims);
        let off = self.frame.push(len.clone(), holds, elem, Some(span));
        if let Some(k) = self.heap.as_mut() {
            // A buffer of its own, made here.
            let id = *k;
            *k += 1;
            self.heap_elems.push(elem);
            let marker = St::Heap {
                id,
                len: self.sizes.get(&len),
                elem,
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
            elem,
            off: off.clone().unwrap_or(Ex::Usize(0)),
            len: Ex::Const(len),
        };
        let view = View {
            base: Base::Scratch(elem),
            off,
            dims: dims.to_vec(),
        };
        (marker, view)
    }

    /// Two buffers of `dims` for `acc`, a double-buffered accumulator: two frame slots, or
    /// one heap buffer of twice the length (so that swapping offsets swaps them).
    /// A local array for a value of `dims` when it is small and of constant length (at most
    /// [`LOCAL_MAX`] elements), of `f64`, and arrays live in the frame: its marker and view.
    /// (An `f32` state of literal length stays in the frame: Goertzel's `[f32; 8]` pair ran
    /// 1.86x slower in locals, which LLVM kept as scalars instead of vectors.) Also, of any
    /// element type, a local as long as the bound an enclosing test puts on a run-time length,
    /// if at most [`LOCAL_MAX`] (an interchanged fold's states under `if m <= 16`: Goertzel at `m` frequencies
    /// took 245,899 instructions with them in the frame, 55,346 in locals).
    pub(super) fn alloc_local(&mut self, elem: Scalar, dims: &[Size]) -> Option<(St, View)> {
        let product = Size::product(dims);
        let len = match product.as_const() {
            Some(len) if elem == Scalar::F64 => len,
            Some(_) => return None,
            None => self.size_at_most(&product)?,
        };
        if self.heap.is_some() || len > LOCAL_MAX || len == 0 {
            return None;
        }
        let id = self.local_elems.len();
        self.local_elems.push(elem);
        let view = View {
            base: Base::Local(id),
            off: None,
            dims: dims.to_vec(),
        };
        let len = usize::try_from(len).ok()?;
        Some((St::Local { id, len, elem }, view))
    }

    pub(super) fn alloc_pair(
        &mut self,
        elem: Scalar,
        dims: &[Size],
        acc: VarId,
        span: Sp,
    ) -> (Vec<St>, View, View) {
        let first = Holds::Acc { acc, first: true };
        if self.heap.is_some() {
            let mut two = vec![Size::Lit(2)];
            two.extend(dims.iter().cloned());
            let (m, w) = self.alloc(elem, &two, first, span);
            let len = Size::product(dims);
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
        let (ma, a) = self.alloc(elem, dims, first, span);
        let (mb, b) = self.alloc(elem, dims, Holds::Acc { acc, first: false }, span);
        (vec![ma, mb], a, b)
    }
}
