//! Accumulation in place: an `ifold` whose state is an array and whose step only adds to it,
//! `build(n, |p| acc[p] + t(p))` (for a matrix, `acc[p][q] + t(p, q)`), where `t` does not
//! read the state. The state lives in the destination, and each step adds its terms there:
//! no second buffer, no copy of the state per step, no final copy. A term that is one
//! element, `if p == e { v } else { 0.0 }` (what reverse mode adds for a read `y[e]`), adds
//! `v` to element `e` alone, O(1) instead of O(n) per step. A step may also be a fold that
//! starts from the state (`ifold(m, acc + t, |a, c| a + u)`, reverse mode's nested sums):
//! it adds to the same destination. Each element is `acc[p] + t(p)` as in the fold (the
//! others of a one-element term keep their value: `x + 0.0` is `x`), so the results are
//! the fold's.

use super::dps::{Dps, Loc, View, fill};
use crate::front::ast::BinOp;
use crate::lir::{Ex, St, plus, wmul};
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};

/// A step that adds to its state, taken apart.
enum Increment<'a> {
    /// The state unchanged (`acc` itself).
    Same,
    /// Terms added at each element (`build(n, |p| acc[p] + t)`).
    Add {
        /// Bindings before the additions (they may read the state: they run before any of
        /// the step's writes).
        lets: Vec<(VarId, &'a Core)>,
        /// The loop index of each of the state's dimensions.
        index: Vec<VarId>,
        /// The term, when it is one element (of a vector state): `(e, v)`.
        element: Option<(&'a Core, &'a Core)>,
        /// The term otherwise, with the `let`s inside the innermost loop before it.
        dense: Option<(Vec<(VarId, &'a Core)>, &'a Core)>,
    },
    /// A fold starting from an increment of the state, each of whose steps adds to it.
    Fold {
        /// Bindings before it.
        lets: Vec<(VarId, &'a Core)>,
        /// Its count.
        count: &'a Core,
        /// Its start.
        start: Box<Increment<'a>>,
        /// Its state and index.
        acc: VarId,
        index: VarId,
        /// Its step.
        step: Box<Increment<'a>>,
    },
}

/// Whether `e` is `acc[p1]..[pk]` for the indexes `index`.
fn is_state_element(e: &Core, acc: VarId, index: &[VarId]) -> bool {
    let mut cur = e;
    let mut at = Vec::new();
    while let Kind::Index(a, i) = &cur.kind {
        match i.kind {
            Kind::Var(v) => at.push(v),
            _ => return false,
        }
        cur = a;
    }
    at.reverse();
    matches!(cur.kind, Kind::Var(v) if v == acc) && at == index
}

/// `if p == e { v } else { 0.0 }` (or `e == p`), `e` and `v` not reading `p`: `(e, v)`.
fn one_element(t: &Core, p: VarId) -> Option<(&Core, &Core)> {
    let Kind::If(c, v, zero) = &t.kind else {
        return None;
    };
    let (Kind::Bin(BinOp::Eq, x, y, _), Kind::Float(z)) = (&c.kind, &zero.kind) else {
        return None;
    };
    if *z != 0.0 || v.mentions(p) {
        return None;
    }
    let is_p = |e: &Core| matches!(e.kind, Kind::Var(v) if v == p);
    match (is_p(x), is_p(y)) {
        (true, false) if !y.mentions(p) => Some((y, v)),
        (false, true) if !x.mentions(p) => Some((x, v)),
        _ => None,
    }
}

/// The `let`s at the head of `e` (none binding an array that reads `acc`: it may be a view
/// of the state, read after the step's writes), and what follows them.
fn head_lets(e: &Core, acc: VarId) -> Option<(Vec<(VarId, &Core)>, &Core)> {
    let mut lets = Vec::new();
    let mut cur = e;
    while let Kind::Let(v, a, b) = &cur.kind {
        if a.ty.is_arr() && a.mentions(acc) {
            return None;
        }
        lets.push((*v, &**a));
        cur = b;
    }
    Some((lets, cur))
}

/// The step `body` of an `ifold` with array state `acc` of type `ty`, when it only adds to
/// the state.
fn increment<'a>(body: &'a Core, acc: VarId, ty: &Type) -> Option<Increment<'a>> {
    let dims = ty.dims();
    if dims.is_empty() || !ty.scalar().is_some_and(Scalar::is_float) {
        return None;
    }
    if matches!(body.kind, Kind::Var(v) if v == acc) {
        return Some(Increment::Same);
    }
    let (lets, mut cur) = head_lets(body, acc)?;
    if let Kind::Ifold(count, init, inner, i, step) = &cur.kind {
        // The inner fold writes the state as it goes: it must not read it otherwise.
        if !init.ty.same(ty) || count.mentions(acc) || step.mentions(acc) {
            return None;
        }
        return Some(Increment::Fold {
            lets,
            count,
            start: Box::new(increment(init, acc, ty)?),
            acc: *inner,
            index: *i,
            step: Box::new(increment(step, *inner, ty)?),
        });
    }
    let mut index = Vec::new();
    for d in dims {
        let Kind::Build(n, p, inner) = &cur.kind else {
            return None;
        };
        if !n.same(d) {
            return None;
        }
        index.push(*p);
        cur = inner;
    }
    let mut inner_lets = Vec::new();
    while let Kind::Let(v, a, b) = &cur.kind {
        if a.mentions(acc) {
            return None;
        }
        inner_lets.push((*v, &**a));
        cur = b;
    }
    // `acc[p] + t` or `t + acc[p]`: adding `t` in place gives the same sums.
    let Kind::Bin(BinOp::Add, a, b, _) = &cur.kind else {
        return None;
    };
    let term = match (
        is_state_element(a, acc, &index),
        is_state_element(b, acc, &index),
    ) {
        (true, false) => &**b,
        (false, true) => &**a,
        _ => return None,
    };
    if term.mentions(acc) {
        return None;
    }
    let element = one_element(term, index[0]).filter(|_| index.len() == 1 && inner_lets.is_empty());
    let dense = element.is_none().then_some((inner_lets, term));
    Some(Increment::Add {
        lets,
        index,
        element,
        dense,
    })
}

impl Dps<'_> {
    /// An `ifold` that adds to an array state, accumulated in `dest` itself; `None` for any
    /// other expression.
    pub(super) fn accumulate(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let step = increment(body, *acc, &e.ty)?;
        let mut code = self.write(init, dest);
        code.extend(self.fold_in_place(n, *acc, *i, &step, &e.ty, dest));
        Some(vec![St::Block(code)])
    }

    /// The loop of a fold whose state `acc` is `dest` and whose step is `step`.
    fn fold_in_place(
        &mut self,
        n: &Core,
        acc: VarId,
        i: VarId,
        step: &Increment,
        ty: &Type,
        dest: &View,
    ) -> Vec<St> {
        let depth = self.frame.depth();
        let nt = self.scalar(n);
        let iv = self.local(i);
        self.env.insert(i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(i, s.clone());
        }
        self.env.insert(acc, Loc::View(dest.clone()));
        self.enter_plain_loop(i, &iv);
        let body = self.add_in_place(step, ty, dest);
        self.loops.pop();
        self.frame.truncate(depth);
        vec![St::For {
            var: iv,
            n: nt,
            streams: Vec::new(),
            body,
        }]
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
                for (v, a) in lets {
                    code.extend(self.bind(*v, a));
                }
                if let Some((at, v)) = element {
                    code.extend(self.add_element(at, v, ty, dest));
                }
                if let Some((inner, term)) = dense {
                    code.extend(self.add_elements(ty, index, inner, term, dest));
                }
            }
            Increment::Fold {
                lets,
                count,
                start,
                acc,
                index,
                step,
            } => {
                for (v, a) in lets {
                    code.extend(self.bind(*v, a));
                }
                code.extend(self.add_in_place(start, ty, dest));
                code.extend(self.fold_in_place(count, *acc, *index, step, ty, dest));
            }
        }
        self.frame.truncate(depth);
        code
    }

    /// `dest[at] += v`, when `at` is inside: the one element of a one-element term.
    fn add_element(&mut self, at: &Core, v: &Core, ty: &Type, dest: &View) -> Vec<St> {
        let len = self.sizes.get(&ty.dims()[0]);
        let id = self.temp("at");
        let at = self.scalar(at);
        let v = self.scalar(v);
        let slot = plus(&dest.off, Ex::Var(id.clone()));
        let sum = Ex::Bin(
            BinOp::Add,
            Box::new(Ex::Ld(dest.base.clone(), Box::new(slot.clone()))),
            Box::new(v),
        );
        vec![
            St::Let {
                id: id.clone(),
                mutable: false,
                usize_ty: true,
                val: at,
            },
            // An index outside the state matches no element of the one-element array.
            St::If(
                Ex::Bin(BinOp::Lt, Box::new(Ex::Var(id)), Box::new(len)),
                vec![St::Store(dest.base.clone(), slot, sum)],
                Vec::new(),
            ),
        ]
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
            let rows = dest.dims[1..].to_vec();
            let row_off = match self.stride(&rows) {
                Some(st) => plus(&dest.off, wmul(Ex::Var(iv.clone()), st)),
                None => plus(&dest.off, Ex::Var(iv.clone())),
            };
            let row = View {
                base: dest.base.clone(),
                off: Some(row_off),
                dims: rows,
            };
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
