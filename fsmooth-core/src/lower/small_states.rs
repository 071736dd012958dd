//! Small states of a run-time length in local arrays. A state of small literal size lives in
//! locals (LANGUAGE.md section 13, [`Dps::alloc_local`]); a state whose length is a size
//! name (Welford's `d` features) is known small only when the kernel is called. A fold
//! whose array states iterate in outputs of run-time length is therefore written twice:
//! when each length is at most [`LOCAL_MAX`], with those states in local arrays of that
//! many elements, copied to the outputs after the loop; else as before, in the outputs.
//!
//! Why: in an output, the state is loaded and stored at every step. When the caller passes a
//! constant `d` and LLVM inlines the kernel, it unrolls the step's loop and keeps both loads
//! and stores (Welford over 16 features: 2.4M instructions a call, as the same size-generic
//! loop written by hand and inlined, 2.38M); a local array it keeps in registers (0.91M).
//! At a length known only at run time, the local needs no test that it overlaps the
//! buffers the step reads (1.21M -> 0.89M).
//!
//! Sound because the local holds exactly what the output would, slot for slot: every access
//! of the output in the fold's code is renamed ([`crate::lir::rename`], which refuses code
//! that reads the output's length), the output is that state and nothing else (its whole
//! length is the state's), and it is written once, after the loop, with the final state.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, rename, same};
use crate::lower::alloc::LOCAL_MAX;
use crate::lower::dps::{Dps, Loc};

impl Dps<'_> {
    /// `code`, a fold whose states are at `places`, also written with the states that
    /// iterate in whole outputs of run-time length in local arrays, under the test that they
    /// fit: `if d <= 16 { locals } else { code }`. `code` as it is when no state moves: in
    /// a loop (the locals would be zeroed at every step of it), under `storage = "heap"`,
    /// for a state of another element type than `f64` (as [`Dps::alloc_local`]).
    pub(super) fn small_states(&mut self, code: Vec<St>, places: &[Loc]) -> Vec<St> {
        if self.heap.is_some() || !self.loops.is_empty() {
            return code;
        }
        let mut moves = Vec::new();
        for p in places {
            let Loc::View(w) = p else { continue };
            let len = Size::product(&w.dims);
            let output = match &w.base {
                Base::Out => Some(&self.kernel.ret),
                Base::OutPart(k) => self.kernel.ret.parts().get(*k),
                _ => None,
            };
            let whole = output.is_some_and(|t| {
                t.scalar() == Some(Scalar::F64)
                    && Size::product(t.dims()).poly() == len.poly()
                    && w.off.as_ref().is_none_or(|o| matches!(o, Ex::Usize(0)))
            });
            if whole && len.as_const().is_none() {
                moves.push((w.base.clone(), self.sizes.get(&len)));
            }
        }
        if moves.is_empty() {
            return code;
        }
        let mut small = code.clone();
        let (mut made, mut out, mut fits) = (Vec::new(), Vec::new(), Vec::new());
        for (base, n) in moves {
            let id = self.local_elems.len();
            self.local_elems.push(Scalar::F64);
            let local = Base::Local(id);
            if !rename(&mut small, &base, &local) {
                return code;
            }
            made.push(St::Local {
                id,
                len: LOCAL_MAX as usize,
                elem: Scalar::F64,
            });
            out.push(St::Copy {
                dst: base,
                dst_off: Ex::Usize(0),
                src: local,
                src_off: Ex::Usize(0),
                n: n.clone(),
            });
            let fit = Ex::Bin(
                BinOp::Le,
                Box::new(n),
                Box::new(Ex::Usize(LOCAL_MAX as usize)),
            );
            if !fits.iter().any(|f| same(f, &fit)) {
                fits.push(fit);
            }
        }
        let Some(test) = fits
            .into_iter()
            .reduce(|a, b| Ex::Bin(BinOp::And, Box::new(a), Box::new(b)))
        else {
            return code;
        };
        made.extend(small);
        made.extend(out);
        vec![St::If(test, vec![St::Block(made)], code)]
    }
}
