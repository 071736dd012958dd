//! Folds (`ifold`) outside the sum forms: an array state double-buffered in the frame,
//! iterating in the output and one buffer, or updated in place when each step replaces one
//! row; and the header a scalar fold's translation starts with (its count, first value and
//! locals).

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, plus, wadd, wmul};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, VarId};
use proc_macro2::Ident;
use quote::format_ident;

/// The parts of a step that replaces one row of its state: `lets` then `build(m, |j| if j ==
/// row { new } else { acc[j] })`.
struct RowUpdate<'a> {
    lets: Vec<(VarId, &'a Core)>,
    row: &'a Core,
    new: &'a Core,
}

impl Dps<'_> {
    /// An `ifold` whose step replaces one row of its array state (`build(m, |j| if j == r {
    /// new } else { acc[j] })`, maybe after `let`s: a chain of transforms, bone by bone) in
    /// `dest` itself (in the frame when `dest` is an output, copied out at the end): the
    /// initial value written there, then per step `new` into a row of the frame (it may read
    /// the state, row `r` included) and copied over row `r` when `r < m`. O(row) per step
    /// instead of a whole new state. `None` for any other step.
    pub(super) fn update_in_place(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let step = self.row_update(body, *acc)?;
        let depth = self.frame.depth();
        // An output is written once per slot: the state then lives in the frame, copied out
        // at the end.
        let mut code = Vec::new();
        let state = if matches!(dest.base, Base::Out | Base::OutPart(_)) {
            let elem = e.ty.scalar().unwrap_or(Scalar::F64);
            let holds = Holds::Acc {
                acc: *acc,
                first: true,
            };
            let (alloc, state) = self.alloc(elem, e.ty.dims(), holds);
            code.push(alloc);
            state
        } else {
            View {
                dims: e.ty.dims().to_vec(),
                ..dest.clone()
            }
        };
        code.extend(self.write(init, &state));
        let nt = self.scalar(n);
        let iv = self.fold_index(n, *i);
        self.env.insert(*acc, Loc::View(state.clone()));
        self.enter_plain_loop(*i, &iv);
        let inner = self.frame.depth();
        let mut body_code = Vec::new();
        for (v, a) in &step.lets {
            body_code.extend(self.bind(*v, a));
        }
        let r = self.scalar(step.row);
        let rv = format_ident!("__row_{}", acc);
        body_code.push(St::let_usize(&rv, r));
        let m = self.sizes.get(&state.dims[0]);
        let target = self.row_of(&state, Ex::Var(rv.clone()));
        let replace = if step.new.ty.is_arr() {
            let elem = step.new.ty.scalar().unwrap_or(Scalar::F64);
            let (alloc, tmp) = self.alloc(elem, step.new.ty.dims(), Holds::Value("updated row"));
            let mut w = vec![alloc];
            w.extend(self.write(step.new, &tmp));
            w.push(self.copy(&tmp, &target));
            w
        } else {
            let v = self.scalar(step.new);
            let at = plus(&state.off, Ex::Var(rv.clone()));
            vec![St::Store(state.base.clone(), at, v)]
        };
        let inside = Ex::Bin(BinOp::Lt, Box::new(Ex::Var(rv)), Box::new(m));
        body_code.push(St::If(inside, replace, Vec::new()));
        self.frame.truncate(inner);
        self.loops.pop();
        code.push(St::For {
            var: iv,
            n: nt,
            streams: Vec::new(),
            body: body_code,
        });
        if state.base != dest.base {
            code.push(self.copy(&state, dest));
        }
        self.frame.truncate(depth);
        Some(vec![St::Block(code)])
    }

    /// `body` as a [`RowUpdate`] of state `acc`: the `if` on `j == r` (or `r == j`, or `!=`
    /// with the branches swapped) with `r` and `new` free of `j`, `r` computed without a
    /// check, the other branch `acc[j]` itself.
    fn row_update<'a>(&self, body: &'a Core, acc: VarId) -> Option<RowUpdate<'a>> {
        let mut lets = Vec::new();
        let mut cur = body;
        while let Kind::Let(v, a, b) = &cur.kind {
            lets.push((*v, &**a));
            cur = b;
        }
        let Kind::Build(_, j, elem) = &cur.kind else {
            return None;
        };
        let Kind::If(c, a, b) = &elem.kind else {
            return None;
        };
        let (new, keep, x, y) = match &c.kind {
            Kind::Bin(BinOp::Eq, x, y, _) => (a, b, x, y),
            Kind::Bin(BinOp::Ne, x, y, _) => (b, a, x, y),
            _ => return None,
        };
        let is = |e: &Core, v: VarId| matches!(e.kind, Kind::Var(w) if w == v);
        let row = if is(x, *j) {
            y
        } else if is(y, *j) {
            x
        } else {
            return None;
        };
        let kept = matches!(&keep.kind, Kind::Index(s, k) if is(s, acc) && is(k, *j));
        if !kept || row.mentions(*j) || new.mentions(*j) || !self.cannot_fail(row) {
            return None;
        }
        Some(RowUpdate { lets, row, new })
    }

    /// An `ifold` with an array state written anywhere but an output: the state in two
    /// buffers of the frame, the body reading one and writing the other, swapped every step,
    /// then copied to `dest`.
    pub(super) fn double_buffered(&mut self, e: &Core, dest: &View) -> Vec<St> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        // Double-buffered accumulator: the body reads one buffer and writes the other.
        let depth = self.frame.depth();
        let elem = e.ty.scalar().unwrap_or(Scalar::F64);
        let (mut code, a, b) = self.alloc_pair(elem, e.ty.dims(), *acc);
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
        let (alloc, other) = self.alloc(
            elem,
            &dims,
            Holds::Acc {
                acc: *acc,
                first: true,
            },
        );
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
                let n = d.sizes.get(&slots(&to.dims));
                let off = to.off.clone().unwrap_or(Ex::Usize(0));
                b.push(St::Restate {
                    base: to.base.clone(),
                    off,
                    n,
                });
            }
            // A step into the frame writes no output: it may stream the state from one.
            let was = std::mem::replace(&mut d.outputs_read_only, to.base == other_base);
            b.extend(d.write(body, to));
            d.outputs_read_only = was;
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
    fn fold_index(&mut self, n: &Core, i: VarId) -> Ident {
        let iv = self.local(i);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(i, s.clone());
        }
        iv
    }
}

/// The slots of an array of these dimensions.
fn slots(dims: &[Size]) -> Size {
    dims.iter()
        .cloned()
        .reduce(Size::times)
        .unwrap_or(Size::Lit(1))
}
