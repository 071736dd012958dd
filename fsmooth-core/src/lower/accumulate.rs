//! Accumulation in place: an `ifold` whose state is an array and whose step only adds to it,
//! `build(n, |p| acc[p] + t(p))` (for a matrix, `acc[p][q] + t(p, q)`), where `t` does not
//! read the state. The state lives in the destination, and each step adds its terms there:
//! no second buffer, no copy of the state per step, no final copy. A term that is one
//! element, `if p == e { v } else { 0.0 }` (what reverse mode adds for a read `y[e]`), adds
//! `v` to element `e` alone, O(1) instead of O(n) per step. A step may also be a fold that
//! starts from the state (`ifold(m, acc + t, |a, c| a + u)`, reverse mode's nested sums):
//! it adds to the same destination. A step may change one row alone, `build(n, |p| if p == e
//! { row } else { acc[p] })` with `row` adding to `acc[p]` (reverse mode's sums into a row):
//! it adds to that row where it lies, and a row `e` outside the state changes nothing.
//! Each element is `acc[p] + t(p)` as in the fold (the
//! others of a one-element term keep their value: `x + 0.0` is `x`), so the results are
//! the fold's. A chain of updates (`let s1 = upd(s); upd(s1)`: reverse mode's rows placed
//! at two indexes) adds to each row in turn. The forms a step takes are recognised in
//! `lower/increments.rs`; this module writes them.

use super::dps::{Dps, Loc, View, fill};
use super::increments::{
    Bind, Increment, Nested, Part, PartsIncrement, Root, increment, parts_increment,
};
use super::streams::run_code;
use crate::front::ast::BinOp;
use crate::lir::{self, Base, Ex, St, Stream, Wrap, plus};
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use proc_macro2::Ident;

impl Dps<'_> {
    /// An `ifold` that adds to an array state, accumulated in `dest` itself; `None` for any
    /// other expression.
    pub(super) fn accumulate(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let step = increment(body, Root::new(*acc, None), &e.ty)?;
        let mut code = self.write(init, dest);
        code.extend(
            self.loop_in_place(n, *acc, *i, Loc::View(dest.clone()), |dps| {
                dps.add_in_place(&step, &e.ty, dest)
            }),
        );
        Some(vec![St::Block(code)])
    }

    /// An `ifold` with a tuple state whose array components each only add to themselves
    /// (a scalar component takes any value), accumulated in `dest`'s places. `None` for any
    /// other expression.
    pub(super) fn accumulate_parts(&mut self, e: &Core, dest: &Loc) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let (Type::Tuple(tys), Loc::Tuple(places)) = (&e.ty, dest) else {
            return None;
        };
        let step = parts_increment(body, Root::new(*acc, None), tys, places)?;
        if !places.iter().any(|p| matches!(p, Loc::View(_))) {
            return None;
        }
        let mut code = self.write_parts(init, dest);
        code.extend(self.loop_in_place(n, *acc, *i, dest.clone(), |dps| {
            dps.parts_in_place(&step, tys, places)
        }));
        Some(vec![St::Block(code)])
    }

    /// Statements applying `step` to the tuple state in `places` (bound already).
    fn parts_in_place(&mut self, step: &PartsIncrement, tys: &[Type], places: &[Loc]) -> Vec<St> {
        let depth = self.frame.depth();
        let mut code = Vec::new();
        match step {
            PartsIncrement::Parts { lets, parts } => {
                code.extend(self.bind_steps(lets, &Loc::Tuple(places.to_vec())));
                // Scalar components computed before any write, stored after.
                let mut taken = Vec::new();
                for (part, place) in parts.iter().zip(places) {
                    if let (Part::Scalar(x), Loc::Scalar(id)) = (part, place) {
                        let next = self.temp("next");
                        let val = self.scalar(x);
                        code.push(St::Let {
                            id: next.clone(),
                            mutable: false,
                            usize_ty: false,
                            val,
                        });
                        taken.push(St::Assign(id.clone(), Ex::Var(next)));
                    }
                }
                for ((part, place), ty) in parts.iter().zip(places).zip(tys) {
                    if let (Part::Array(inc), Loc::View(w)) = (part, place) {
                        code.extend(self.add_in_place(inc, ty, w));
                    }
                }
                code.extend(taken);
            }
            PartsIncrement::Fold(nested) => {
                let state = Loc::Tuple(places.to_vec());
                code.extend(self.nested(nested, state, |dps, step| {
                    dps.parts_in_place(step, tys, places)
                }));
            }
        }
        self.frame.truncate(depth);
        code
    }

    /// An inner fold on the state in `state`: its `let`s, its start applied, then its loop
    /// applying its step (`apply` writes a step of either kind).
    fn nested<Step>(
        &mut self,
        fold: &Nested<Step>,
        state: Loc,
        apply: impl Fn(&mut Self, &Step) -> Vec<St>,
    ) -> Vec<St> {
        let mut code = self.bind_steps(&fold.lets, &state);
        code.extend(apply(self, &fold.start));
        code.extend(
            self.loop_in_place(fold.count, fold.acc, fold.index, state, |dps| {
                apply(dps, &fold.step)
            }),
        );
        code
    }

    /// `for i in 0..n { body }`, the fold's state `acc` bound to `state` inside.
    fn loop_in_place(
        &mut self,
        n: &Core,
        acc: VarId,
        i: VarId,
        state: Loc,
        body: impl FnOnce(&mut Self) -> Vec<St>,
    ) -> Vec<St> {
        let depth = self.frame.depth();
        let nt = self.scalar(n);
        let iv = self.local(i);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(i, s.clone());
        }
        self.env.insert(acc, state);
        // Rows read along the loop are streams (a layer's weights in a gradient's step); a
        // stream of a buffer the step writes becomes loads again when the loop closes.
        self.enter_loop(i, &iv);
        // The body is statements with no early exit, so it may keep running indexes (the
        // reverse of a packed triangle's fold adds at `q[d + c * (2d - c - 1) / 2 + ..]`).
        if let Some(c) = self.loops.last_mut() {
            c.runs_ok = true;
        }
        let mut body = body(self);
        let runs = self.take_runs();
        let streams = self.leave_loop_sts(&mut body, None);
        self.frame.truncate(depth);
        let mut code = Vec::new();
        run_code(runs, &mut code, &mut body);
        code.push(St::For {
            var: iv,
            n: nt,
            streams,
            body,
        });
        code
    }

    /// The bindings `lets` of a step on the state in `state`: each `let` bound, each link
    /// applied in place (then its variable names its component's place).
    fn bind_steps(&mut self, lets: &[Bind], state: &Loc) -> Vec<St> {
        let mut code = Vec::new();
        for b in lets {
            match b {
                Bind::Let(v, a) => code.extend(self.bind(*v, a)),
                Bind::Link { var, part, ty, inc } => {
                    let place = match (state, part) {
                        (Loc::View(w), _) => Some(w.clone()),
                        (Loc::Tuple(ps), Some(k)) => match ps.get(*k) {
                            Some(Loc::View(w)) => Some(w.clone()),
                            _ => None,
                        },
                        _ => None,
                    };
                    match place {
                        Some(w) => {
                            code.extend(self.add_in_place(inc, ty, &w));
                            self.env.insert(*var, Loc::View(w));
                        }
                        // Not reached: a component with an increment has a place. Computed
                        // apart, as a `let`, the link would be wrong (the later links add to
                        // the state while reading it), so it is an internal error instead.
                        None => code.push(St::Assign(
                            quote::format_ident!("__internal"),
                            Ex::Internal("a link of a chain of row updates has no place"),
                        )),
                    }
                }
            }
        }
        code
    }

    /// Statements adding `step`'s terms to `dest` (the state, bound already).
    fn add_in_place(&mut self, step: &Increment, ty: &Type, dest: &View) -> Vec<St> {
        let depth = self.frame.depth();
        let mut code = Vec::new();
        match step {
            Increment::Same => {}
            Increment::Add {
                lets,
                index,
                element,
                dense,
            } => {
                code.extend(self.bind_steps(lets, &Loc::View(dest.clone())));
                if let Some((at, v, op)) = element {
                    code.extend(self.add_element(at, v, *op, ty, index, dest));
                }
                if let Some((inner, term)) = dense {
                    code.extend(self.add_elements(ty, index, inner, term, dest));
                }
            }
            Increment::Items { lets, terms } => {
                code.extend(self.bind_steps(lets, &Loc::View(dest.clone())));
                let width = ty.dims()[0].as_const().unwrap_or(0) as usize;
                if terms.len() < width {
                    // Some items alone: each loaded, changed and stored (all computed first).
                    let mut sums = Vec::new();
                    for (k, t, op, guard) in terms {
                        let slot = plus(&dest.off, Ex::Usize(*k));
                        let old = Ex::Ld(dest.base.clone(), Box::new(slot.clone()));
                        let v = self.scalar(t);
                        let sum = Ex::Bin(*op, Box::new(old.clone()), Box::new(v));
                        let sum = match guard {
                            Some(c) => {
                                Ex::If(Box::new(self.scalar(c)), Box::new(sum), Box::new(old))
                            }
                            None => sum,
                        };
                        sums.push((slot, sum));
                    }
                    for (slot, sum) in sums {
                        code.push(St::Store(dest.base.clone(), slot, sum));
                    }
                } else {
                    // Every item changed: the row read and stored whole, one range check.
                    let elem = ty.scalar().unwrap_or(Scalar::F64);
                    let off = dest.off.clone().unwrap_or(Ex::Usize(0));
                    let old = |k: usize| {
                        Ex::LdRow(dest.base.clone(), Box::new(off.clone()), width, k, elem)
                    };
                    let mut items: Vec<Ex> = (0..width).map(old).collect();
                    for (k, t, op, guard) in terms {
                        let v = self.scalar(t);
                        let sum = Ex::Bin(*op, Box::new(old(*k)), Box::new(v));
                        items[*k] = match guard {
                            Some(c) => {
                                Ex::If(Box::new(self.scalar(c)), Box::new(sum), Box::new(old(*k)))
                            }
                            None => sum,
                        };
                    }
                    code.push(St::StoreRow(dest.base.clone(), off, items));
                }
            }
            Increment::Fold(nested) => {
                let state = Loc::View(dest.clone());
                code.extend(
                    self.nested(nested, state, |dps, step| dps.add_in_place(step, ty, dest)),
                );
            }
            Increment::Row {
                lets,
                index,
                at,
                row,
            } => {
                code.extend(self.bind_steps(lets, &Loc::View(dest.clone())));
                code.extend(self.add_to_row(*index, at, row, ty, dest));
            }
        }
        self.frame.truncate(depth);
        code
    }

    /// The increment `row` of row `at` of `dest` (`index` bound to `at` for its terms), when
    /// `at` is inside: the other rows keep their values.
    fn add_to_row(
        &mut self,
        index: VarId,
        at: &Core,
        row: &Increment,
        ty: &Type,
        dest: &View,
    ) -> Vec<St> {
        self.at_index(at, ty, "row_at", |dps, id| {
            dps.env.insert(index, Loc::Scalar(id.clone()));
            dps.bounds.insert(index, ty.dims()[0].clone());
            let view = dps.row_of(dest, Ex::Var(id.clone()));
            dps.add_in_place(row, &row_type(ty), &view)
        })
    }

    /// `dest[at] += v` (`-=` when `op` subtracts), when `at` is inside: the one element
    /// (or row, over the other `index`es, added) of a one-element term.
    fn add_element(
        &mut self,
        at: &Core,
        v: &Core,
        op: BinOp,
        ty: &Type,
        index: &[VarId],
        dest: &View,
    ) -> Vec<St> {
        self.at_index(at, ty, "at", |dps, id| {
            let slot = plus(&dest.off, Ex::Var(id.clone()));
            if index.len() == 1 {
                let v = dps.scalar(v);
                let sum = Ex::Bin(
                    op,
                    Box::new(Ex::Ld(dest.base.clone(), Box::new(slot.clone()))),
                    Box::new(v),
                );
                vec![St::Store(dest.base.clone(), slot, sum)]
            } else {
                let row = dps.row_of(dest, Ex::Var(id.clone()));
                dps.add_elements(&row_type(ty), &index[1..], &[], v, &row)
            }
        })
    }

    /// `let id = at;` (a temporary named for `name`), then `update`'s statements for that
    /// index of the state of type `ty`, behind `if id < len` unless `at` is proven inside:
    /// an index outside matches no element or row, so it changes nothing. An index proven
    /// inside (the one the primal read there) needs no test and no checked arithmetic. Not
    /// through an index array's entry check: a one-hot term reads no element, so an index
    /// outside is no error.
    fn at_index(
        &mut self,
        at: &Core,
        ty: &Type,
        name: &str,
        update: impl FnOnce(&mut Self, &Ident) -> Vec<St>,
    ) -> Vec<St> {
        let len = self.sizes.get(&ty.dims()[0]);
        let id = self.temp(name);
        let proven =
            self.proven_below(at, &ty.dims()[0]) || self.checked_already(at, &ty.dims()[0]);
        let val = if proven {
            match self.running_index(at) {
                Some(run) => run,
                None => self.index_expr(at),
            }
        } else {
            self.scalar(at)
        };
        let update = update(self, &id);
        let mut code = vec![St::Let {
            id: id.clone(),
            mutable: false,
            usize_ty: true,
            val,
        }];
        if proven {
            code.extend(update);
        } else {
            code.push(St::If(
                Ex::Bin(BinOp::Lt, Box::new(Ex::Var(id)), Box::new(len)),
                update,
                Vec::new(),
            ));
        }
        code
    }

    /// Loops over the state's indexes adding the term (after the `let`s) to each element of
    /// `dest`.
    fn add_elements(
        &mut self,
        ty: &Type,
        index: &[VarId],
        lets: &[(VarId, &Core)],
        term: &Core,
        dest: &View,
    ) -> Vec<St> {
        let dims = &ty.dims()[ty.dims().len() - index.len()..];
        let nt = self.sizes.get(&dims[0]);
        let iv = self.local(index[0]);
        self.env.insert(index[0], Loc::Scalar(iv.clone()));
        self.bounds.insert(index[0], dims[0].clone());
        let depth = self.frame.depth();
        if index.len() > 1 {
            let row = self.row_of(dest, Ex::Var(iv.clone()));
            self.enter_plain_loop(index[0], &iv);
            let elem = ty.scalar().unwrap_or(Scalar::F64);
            let inner_ty = Type::Arr(elem, dims[1..].to_vec());
            let b = self.add_elements(&inner_ty, &index[1..], lets, term, &row);
            self.loops.pop();
            self.frame.truncate(depth);
            return vec![St::For {
                var: iv,
                n: nt,
                streams: Vec::new(),
                body: b,
            }];
        }
        self.enter_loop(index[0], &iv);
        let mut stmts = Vec::new();
        for (v, a) in lets {
            stmts.extend(self.bind(*v, a));
        }
        let sum = self.scalar(term);
        let mut b = if stmts.is_empty() {
            sum
        } else {
            Ex::Block(stmts, Box::new(sum))
        };
        self.frame.truncate(depth);
        let streams = self.leave_loop_ex(&mut b, Some(&dest.base));
        if let Some(src_off) = slot_of_same_buffer(&b, &dest.base, &iv, &streams) {
            // A row held elsewhere in the state's buffer: one call adding the two slices.
            return vec![St::AddWithin {
                base: dest.base.clone(),
                dst_off: dest.off.clone().unwrap_or(Ex::Usize(0)),
                src_off,
                n: nt,
            }];
        }
        if self.reads(&b, &dest.base) {
            let at = plus(&dest.off, Ex::Var(iv.clone()));
            let old = Ex::Ld(dest.base.clone(), Box::new(at.clone()));
            let new = Ex::Bin(BinOp::Add, Box::new(old), Box::new(b));
            vec![St::For {
                var: iv,
                n: nt,
                streams,
                body: vec![St::Store(dest.base.clone(), at, new)],
            }]
        } else {
            vec![fill(dest, &iv, &nt, streams, vec![St::SlotAdd(b)])]
        }
    }
}

/// The type of a row of an array of type `ty`.
fn row_type(ty: &Type) -> Type {
    Type::Arr(ty.scalar().unwrap_or(Scalar::F64), ty.dims()[1..].to_vec())
}

/// The first slot `src` when the term `b` is the load `base[src + i]` at the loop's index
/// `i` from the destination's own buffer, with no stream and nothing else: the add is then
/// [`St::AddWithin`].
fn slot_of_same_buffer(b: &Ex, base: &Base, i: &Ident, streams: &[Stream]) -> Option<Ex> {
    let Ex::Ld(from, at) = b else { return None };
    if from != base || !streams.is_empty() {
        return None;
    }
    let src = match &**at {
        Ex::Var(v) if v == i => Ex::Usize(0),
        Ex::Wrap(Wrap::Add, a, v) if matches!(&**v, Ex::Var(v) if v == i) => (**a).clone(),
        _ => return None,
    };
    (!lir::idents(&src).contains(i)).then_some(src)
}
