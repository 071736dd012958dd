//! Folds (`ifold`) outside the sum forms: an array state double-buffered in the frame, or
//! iterating in the output and one buffer (a step replacing one row: `lower/row_updates.rs`);
//! and the header a scalar fold's translation starts with (its count, first value and
//! locals).

use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, wadd, wmul};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, Type, VarId};
use proc_macro2::Ident;
use quote::format_ident;

/// `e`'s `let`s and what they end with.
pub(super) fn lets_of(e: &Core) -> (Vec<(VarId, &Core)>, &Core) {
    let mut lets = Vec::new();
    let mut cur = e;
    while let Kind::Let(v, a, b) = &cur.kind {
        lets.push((*v, &**a));
        cur = b;
    }
    (lets, cur)
}

impl Dps<'_> {
    /// [`restated`] for each whole view of `places` that is in an output: a state replaced
    /// on every step, read in part or not at all.
    pub(super) fn restated_all<'v>(
        &mut self,
        places: impl IntoIterator<Item = &'v View>,
    ) -> Vec<St> {
        let mut code = Vec::new();
        for w in places {
            let n = self.sizes.get(&Size::product(&w.dims));
            code.extend(restated(w, w.off.as_ref().unwrap_or(&Ex::Usize(0)), n));
        }
        code
    }
}

/// Before a row of a state that lives in an output is replaced: the row's slots may be
/// overwritten unread ([`St::Restate`]); nothing for a state in the frame.
pub(super) fn restated(state: &View, off: &Ex, n: Ex) -> Vec<St> {
    match state.base {
        Base::Out | Base::OutPart(_) => vec![St::Restate {
            base: state.base.clone(),
            off: off.clone(),
            n,
        }],
        _ => Vec::new(),
    }
}

impl Dps<'_> {
    /// An `ifold` with an array state written anywhere but an output: the state in two
    /// buffers, then copied to `dest`; the steps in pairs over fixed buffers
    /// ([`Dps::ifold_parts_in_pairs`]), or with one heap buffer per array (`storage =
    /// "heap"`) the body reading one and writing the other, swapped every step.
    pub(super) fn double_buffered(&mut self, e: &Core, dest: &View) -> Vec<St> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        let depth = self.frame.depth();
        if self.heap.is_none() {
            let code = self.ifold_parts_in_pairs(e, &Loc::View(dest.clone()));
            self.frame.truncate(depth);
            return code;
        }
        // Double-buffered accumulator: the body reads one buffer and writes the other.
        let elem = e.ty.scalar().unwrap_or(Scalar::F64);
        let (mut code, a, b) = self.alloc_pair(elem, e.ty.dims(), *acc, e.span);
        let nt = self.scalar(n);
        code.extend(self.write(init, &a));
        let (cur, nxt) = (
            format_ident!("__cur_{}", acc),
            format_ident!("__nxt_{}", acc),
        );
        let iv = self.fold_index(n, *i);
        let buf = a.base.clone();
        let at = |id: &Ident| View {
            base: buf.clone(),
            off: Some(Ex::Var(id.clone())),
            dims: e.ty.dims().to_vec(),
        };
        self.env.insert(*acc, Loc::View(at(&cur)));
        self.enter_plain_loop(*i, &iv);
        let mut body_code = self.write(body, &at(&nxt));
        self.loops.pop();
        body_code.push(St::Swap(cur.clone(), nxt.clone()));
        let copy = self.copy(&at(&cur), dest);
        self.frame.truncate(depth);
        for (id, v) in [(&cur, a), (&nxt, b)] {
            code.push(St::Let {
                id: id.clone(),
                mutable: true,
                usize_ty: true,
                val: v.off.unwrap_or(Ex::Usize(0)),
            });
        }
        code.push(St::For {
            var: iv,
            n: nt,
            streams: Vec::new(),
            body: body_code,
        });
        code.push(copy);
        vec![St::Block(code)]
    }

    /// A fold whose step is a fold started from its state, reading the state nowhere else
    /// (Gauss-Seidel's sweeps, `ifold(steps, u0, |u, _| ifold(n, u, |v, i| ..))`): the outer
    /// state is the inner fold's start in the same place, so each sweep runs the inner fold
    /// in `dest` itself (its start already there), with no second buffer and no copy per
    /// sweep, as the flat `ifold(steps * n, ..)` does.
    pub(super) fn fold_through(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let Kind::Ifold(count, start, _, _, step) = &body.kind else {
            return None;
        };
        if !matches!(start.kind, Kind::Var(v) if v == *acc)
            || count.mentions(*acc)
            || step.mentions(*acc)
            || self.heap.is_some()
        {
            return None;
        }
        let depth = self.frame.depth();
        let here = View {
            dims: e.ty.dims().to_vec(),
            ..dest.clone()
        };
        let mut code = self.write(init, &here);
        let count = self.scalar(n);
        let iv = self.fold_index(n, *i);
        self.env.insert(*acc, Loc::View(here.clone()));
        self.enter_plain_loop(*i, &iv);
        let inner = self.write(body, &here);
        self.loops.pop();
        code.push(St::For {
            var: iv,
            n: count,
            streams: Vec::new(),
            body: inner,
        });
        self.frame.truncate(depth);
        Some(vec![St::Block(code)])
    }

    /// An `ifold` with an array state written to an output: the state lives in the output
    /// and one buffer of the frame, the steps writing one from the other in turn, so the last
    /// step writes the output (no final copy, one buffer instead of two). The initial value
    /// goes where that comes out right: the output for an even count of steps, the buffer for
    /// an odd one, whose first step is then written out apart. The steps run in pairs, output
    /// to buffer and back, so each step's code has one buffer to read and another to write.
    pub(super) fn iterate_in_output(&mut self, e: &Core, dest: &View) -> Vec<St> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        let depth = self.frame.depth();
        let elem = e.ty.scalar().unwrap_or(Scalar::F64);
        let dims = e.ty.dims().to_vec();
        // The other buffer of a small state of literal size is a local array (LANGUAGE.md
        // section 13: such a state lives in locals, not the frame).
        let (alloc, other) = match self.alloc_local(elem, &dims) {
            Some(local) => local,
            None => self.alloc(
                elem,
                &dims,
                Holds::Acc {
                    acc: *acc,
                    first: true,
                },
                e.span,
            ),
        };
        let other_base = other.base.clone();
        let out = View {
            dims: dims.clone(),
            ..dest.clone()
        };
        let steps = format_ident!("__steps_{}", acc);
        let pair = format_ident!("__pair_{}", acc);
        let count = self.scalar(n);
        let odd = Ex::Bin(
            BinOp::Rem,
            Box::new(Ex::Var(steps.clone())),
            Box::new(Ex::Usize(2)),
        );
        let is_odd = Ex::Bin(BinOp::Eq, Box::new(odd.clone()), Box::new(Ex::Usize(1)));
        let mut code = vec![
            alloc,
            St::Let {
                id: steps.clone(),
                mutable: false,
                usize_ty: true,
                val: count,
            },
        ];
        let into_other = self.write(init, &other);
        let into_out = self.write(init, &out);
        code.push(St::If(is_odd.clone(), into_other, into_out));
        let iv = self.fold_index(n, *i);
        // Step number `index`: the state read from `from`, the next written to `to`.
        let step = |d: &mut Self, from: &View, to: &View, index: Ex| -> St {
            d.env.insert(*acc, Loc::View(from.clone()));
            d.enter_plain_loop(*i, &iv);
            let mut b = vec![St::Let {
                id: iv.clone(),
                mutable: false,
                usize_ty: true,
                val: index,
            }];
            // The output's state is replaced by this step, read in part or not at all.
            if to.base != other_base {
                let n = d.sizes.get(&Size::product(&to.dims));
                let off = to.off.clone().unwrap_or(Ex::Usize(0));
                b.extend(restated(to, &off, n));
            }
            b.extend(d.write(body, to));
            d.loops.pop();
            St::Block(b)
        };
        let first = step(self, &other, &out, Ex::Usize(0));
        code.push(St::If(is_odd, vec![first], Vec::new()));
        let at = wadd(wmul(Ex::Var(pair.clone()), Ex::Usize(2)), odd);
        let there = step(self, &out, &other, at.clone());
        let back = step(self, &other, &out, wadd(at, Ex::Usize(1)));
        code.push(St::For {
            var: pair,
            n: Ex::Bin(BinOp::Div, Box::new(Ex::Var(steps)), Box::new(Ex::Usize(2))),
            streams: Vec::new(),
            body: vec![there, back],
        });
        self.frame.truncate(depth);
        vec![St::Block(code)]
    }

    /// The parts of a scalar `ifold` translated before its loop: its count, its first value,
    /// and the locals of its state and index (bound in the environment, the index bounded by
    /// the count, which may be an enclosing index: `ifold(j, ..)`).
    pub(super) fn fold_header(
        &mut self,
        n: &Core,
        init: &Core,
        acc: VarId,
        i: VarId,
    ) -> (Ex, Ex, Ident, Ident) {
        let (nt, it) = (self.scalar(n), self.scalar(init));
        let av = self.local(acc);
        self.env.insert(acc, Loc::Scalar(av.clone()));
        let iv = self.fold_index(n, i);
        (nt, it, av, iv)
    }

    /// The local of fold index `i`, bound in the environment and bounded by the count `n`
    /// (which may be an enclosing index, `ifold(j, ..)`: it bounds `i` all the same).
    pub(super) fn fold_index(&mut self, n: &Core, i: VarId) -> Ident {
        let iv = self.local(i);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(i, s.clone());
        }
        iv
    }
}

impl Dps<'_> {
    /// A scalar `iterate` (LANGUAGE.md section 14): `let mut s = init; while cond { s =
    /// next; }`, the condition's and the step's state one local. The step is translated
    /// knowing the condition holds, of its own state.
    pub(super) fn iterate_scalar(
        &mut self,
        init: &Core,
        s: VarId,
        cond: &Core,
        t: VarId,
        next: &Core,
    ) -> Ex {
        let it = self.scalar(init);
        let sv = self.local(s);
        self.env.insert(s, Loc::Scalar(sv.clone()));
        self.env.insert(t, Loc::Scalar(sv.clone()));
        let depth = self.frame.depth();
        let c = self.scalar(cond);
        self.frame.truncate(depth);
        let holds = cond_in_step(cond, s, t, &init.ty, init.span);
        let b = self.guarded(&holds, true, |d| d.scalar(next));
        self.frame.truncate(depth);
        let code = vec![
            St::Let {
                id: sv.clone(),
                mutable: true,
                usize_ty: false,
                val: it,
            },
            St::While(c, vec![St::Assign(sv.clone(), b)]),
        ];
        Ex::Block(code, Box::new(Ex::Var(sv)))
    }
}

/// An `iterate`'s condition on `s` as its step sees it, on `t`: the step runs knowing it
/// holds (an index it proves in range).
pub(super) fn cond_in_step(cond: &Core, s: VarId, t: VarId, ty: &Type, span: Sp) -> Core {
    let mut holds = cond.clone();
    holds.subst(s, &Core::new(Kind::Var(t), ty.clone(), span));
    holds
}
