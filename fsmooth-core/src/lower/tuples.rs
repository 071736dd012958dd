//! Tuples in the translation (LANGUAGE.md section 8; scans are `scans.rs`). A tuple is never stored as
//! such: a tuple value is a [`Loc::Tuple`] of its components' places (a Rust local for each
//! scalar, a view for each array), and a tuple expression is written into a tuple of
//! destinations component by component ([`Dps::write_parts`]). An `ifold` with a tuple state
//! keeps one local per scalar component and a pair of buffers per array component (one place
//! for a component updated in place, `in_place.rs`).

use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::lir::{Ex, Scalar, St, plus, wadd, wmul};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::folds::cond_in_step;
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, Type, VarId};
use proc_macro2::Ident;
use quote::format_ident;

/// What an accumulator component does at the end of each step: a scalar takes its next value,
/// a double-buffered array swaps its buffers.
#[derive(Clone)]
pub(super) enum Step {
    Take(Ident, Ident),
    Swap(Ident, Ident),
}

impl Step {
    /// The statement that ends a step with it.
    fn code(self) -> St {
        match self {
            Step::Take(c, n) => St::Assign(c, Ex::Var(n)),
            Step::Swap(c, n) => St::Swap(c, n),
        }
    }
}

impl Dps<'_> {
    /// A Rust local of its own, for a compiler temporary.
    pub(super) fn temp(&mut self, what: &str) -> Ident {
        self.temps += 1;
        format_ident!("__{}{}", what, self.temps)
    }

    /// Scalar `x` computed into a temporary of its own (its `let` pushed to `code`).
    pub(super) fn scalar_temp(&mut self, x: &Core, what: &str, code: &mut Vec<St>) -> Ident {
        let val = self.scalar(x);
        let id = self.temp(what);
        code.push(St::Let {
            id: id.clone(),
            mutable: false,
            usize_ty: x.ty == Type::Usize,
            val,
        });
        id
    }

    /// A mutable local holding a placeholder of scalar type `t` until it is assigned.
    pub(super) fn scalar_place(&mut self, t: &Type, what: &str, code: &mut Vec<St>) -> Ident {
        let id = self.temp(what);
        let (val, usize_ty) = match t {
            Type::Usize => (Ex::Usize(0), true),
            t => (crate::lir::zero(t.scalar().unwrap_or(Scalar::F64)), false),
        };
        code.push(St::Let {
            id: id.clone(),
            mutable: true,
            usize_ty,
            val,
        });
        id
    }

    /// Places for a value of type `t`: a mutable local per scalar, a frame buffer per array.
    pub(super) fn place(&mut self, t: &Type, holds: &Holds, span: Sp, code: &mut Vec<St>) -> Loc {
        match t {
            Type::Tuple(ts) => Loc::Tuple(
                ts.iter()
                    .map(|x| self.place(x, holds, span, code))
                    .collect(),
            ),
            Type::Arr(elem, d) => {
                let (marker, w) = self.alloc(*elem, d, holds.clone(), span);
                code.push(marker);
                Loc::View(w)
            }
            t => Loc::Scalar(self.scalar_place(t, "p", code)),
        }
    }

    /// [`Dps::place`] for the value of a fold: a small array of literal size in a local array
    /// (LANGUAGE.md section 13), not the frame.
    pub(super) fn fold_place(
        &mut self,
        t: &Type,
        holds: &Holds,
        span: Sp,
        code: &mut Vec<St>,
    ) -> Loc {
        match t {
            Type::Tuple(ts) => Loc::Tuple(
                ts.iter()
                    .map(|x| self.fold_place(x, holds, span, code))
                    .collect(),
            ),
            Type::Arr(elem, d) => match self.alloc_local(*elem, d) {
                Some((marker, w)) => {
                    code.push(marker);
                    Loc::View(w)
                }
                None => self.place(t, holds, span, code),
            },
            t => self.place(t, holds, span, code),
        }
    }

    /// Where a tuple-typed value is, computing it first if it is not anywhere yet. The
    /// statements run in the enclosing scope (the locals they bind stay visible), and
    /// allocations stay live until the caller truncates the frame.
    pub(super) fn locate(&mut self, e: &Core) -> (Vec<St>, Loc) {
        match &e.kind {
            Kind::Var(v) => {
                if let Some(loc) = self.env.get(v) {
                    return (Vec::new(), loc.clone());
                }
                (Vec::new(), Loc::Scalar(format_ident!("__unbound")))
            }
            Kind::Tuple(xs) => {
                let mut code = Vec::new();
                let mut parts = Vec::new();
                for x in xs {
                    if x.ty.is_tuple() {
                        let (pre, loc) = self.locate(x);
                        code.extend(pre);
                        parts.push(loc);
                    } else if x.ty.is_arr() {
                        let (pre, w) = self.view(x);
                        code.extend(pre);
                        parts.push(Loc::View(w));
                    } else {
                        let id = self.scalar_temp(x, "t", &mut code);
                        parts.push(Loc::Scalar(id));
                    }
                }
                (code, Loc::Tuple(parts))
            }
            Kind::Proj(t, k) => {
                let (pre, loc) = self.locate(t);
                (pre, part(loc, *k))
            }
            Kind::Let(v, a, b) => {
                let mut code = self.bind(*v, a);
                let (pre, loc) = self.locate(b);
                code.extend(pre);
                (code, loc)
            }
            _ => {
                let mut code = Vec::new();
                let dest = match e.kind {
                    Kind::Ifold(..) => self.fold_place(&e.ty, &Holds::value(e), e.span, &mut code),
                    _ => self.place(&e.ty, &Holds::value(e), e.span, &mut code),
                };
                code.extend(self.write_parts(e, &dest));
                (code, dest)
            }
        }
    }

    /// Component `k` of tuple `t` into `dest`: the other components go to places of their
    /// own, or nowhere for a scan's scalar states that nothing reads.
    pub(super) fn write_part(&mut self, t: &Core, k: usize, dest: &View) -> Vec<St> {
        let depth = self.frame.depth();
        let mut code = Vec::new();
        let scan = matches!(t.kind, Kind::Scan(..));
        let parts =
            t.ty.parts()
                .iter()
                .enumerate()
                .map(|(j, ty)| {
                    if j == k {
                        Loc::View(dest.clone())
                    } else if scan && ty.dims().len() == 1 {
                        Loc::Nowhere
                    } else if let (true, Some(two)) = (scan, crate::lower::scans::two_rows(ty)) {
                        self.place(&two, &Holds::value(t), t.span, &mut code)
                    } else if matches!(t.kind, Kind::Ifold(..)) {
                        // Unread: the fold keeps the state where it needs it, copies nothing.
                        Loc::Nowhere
                    } else {
                        self.place(ty, &Holds::value(t), t.span, &mut code)
                    }
                })
                .collect();
        code.extend(self.write_parts(t, &Loc::Tuple(parts)));
        self.frame.truncate(depth);
        vec![St::Block(code)]
    }

    /// Write `e` to `dest`: a scalar assigned to a local, an array written to a view, a
    /// tuple component by component.
    pub(super) fn write_parts(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        let ds = match dest {
            Loc::Scalar(id) => {
                let v = self.scalar(e);
                return vec![St::Assign(id.clone(), v)];
            }
            Loc::View(w) => return self.write(e, w),
            Loc::Nowhere => return Vec::new(),
            Loc::Tuple(ds) => ds,
        };
        let depth = self.frame.depth();
        let code = match &e.kind {
            Kind::Tuple(xs) => {
                let mut code = Vec::new();
                for (x, d) in xs.iter().zip(ds) {
                    let depth = self.frame.depth();
                    code.extend(self.write_parts(x, d));
                    self.frame.truncate(depth);
                }
                code
            }
            Kind::Let(..) => {
                let (mut stmts, last, homed) = self.bind_chain(e, dest);
                stmts.extend(self.write_rest(last, dest, &homed, &mut Vec::new()));
                vec![St::Block(stmts)]
            }
            Kind::If(c, a, b) => {
                let c = self.scalar(c);
                let a = self.write_parts(a, dest);
                self.frame.truncate(depth);
                let b = self.write_parts(b, dest);
                vec![St::If(c, a, b)]
            }
            Kind::Ifold(..) => self.ifold_parts(e, dest),
            Kind::Iterate(..) => match self.iterate_in_place(e, dest) {
                Some(code) => code,
                None => self.iterate_parts(e, dest),
            },
            Kind::Scan(..) => self.scan(e, dest),
            _ => {
                let (mut pre, src) = self.locate(e);
                pre.extend(self.copy_loc(&src, dest));
                vec![St::Block(pre)]
            }
        };
        self.frame.truncate(depth);
        code
    }

    /// Copy every component of `src` to `dest`.
    fn copy_loc(&mut self, src: &Loc, dest: &Loc) -> Vec<St> {
        match (src, dest) {
            (Loc::Scalar(s), Loc::Scalar(d)) => vec![St::Assign(d.clone(), Ex::Var(s.clone()))],
            (Loc::View(s), Loc::View(d)) if same_view(s, d) => Vec::new(),
            (Loc::View(s), Loc::View(d)) => vec![self.copy(s, d)],
            (_, Loc::Nowhere) => Vec::new(),
            (Loc::Tuple(ss), Loc::Tuple(ds)) => ss
                .iter()
                .zip(ds)
                .flat_map(|(s, d)| self.copy_loc(s, d))
                .collect(),
            _ => vec![St::Assign(
                format_ident!("__internal"),
                Ex::Internal("a tuple component copied to a place of another kind"),
            )],
        }
    }

    /// The scalar component `e.k` of a tuple.
    pub(super) fn proj_scalar(&mut self, t: &Core, k: usize) -> Ex {
        let depth = self.frame.depth();
        let (pre, loc) = self.locate(t);
        self.frame.truncate(depth);
        let r = match part(loc, k) {
            Loc::Scalar(id) => Ex::Var(id),
            _ => Ex::Internal("an array component used as a scalar"),
        };
        if pre.is_empty() {
            r
        } else {
            Ex::Block(pre, Box::new(r))
        }
    }

    /// An accumulator's places for type `t`: the current value (with a placeholder), the next
    /// one, and what each step ends with.
    /// With `fixed`, an array's places are its two buffers as they are, which the steps
    /// take in turn (see [`Dps::ifold_parts`]), and it adds no step.
    pub(super) fn acc_places(
        &mut self,
        t: &Type,
        acc: VarId,
        fixed: bool,
        span: Sp,
        code: &mut Vec<St>,
        steps: &mut Vec<Step>,
    ) -> (Loc, Loc) {
        match t {
            Type::Tuple(ts) => {
                let (mut cur, mut nxt) = (Vec::new(), Vec::new());
                for x in ts {
                    let (c, n) = self.acc_places(x, acc, fixed, span, code, steps);
                    cur.push(c);
                    nxt.push(n);
                }
                (Loc::Tuple(cur), Loc::Tuple(nxt))
            }
            Type::Arr(elem, d) => {
                if fixed
                    && let Some((ma, a)) = self.alloc_local(*elem, d)
                    && let Some((mb, b)) = self.alloc_local(*elem, d)
                {
                    code.extend([ma, mb]);
                    return (Loc::View(a), Loc::View(b));
                }
                let (markers, a, b) = self.alloc_pair(*elem, d, acc, span);
                code.extend(markers);
                if fixed {
                    return (Loc::View(a), Loc::View(b));
                }
                let (c, n) = (self.temp("cur"), self.temp("nxt"));
                for (id, w) in [(&c, &a), (&n, &b)] {
                    code.push(St::Let {
                        id: id.clone(),
                        mutable: true,
                        usize_ty: true,
                        val: w.off.clone().unwrap_or(Ex::Usize(0)),
                    });
                }
                steps.push(Step::Swap(c.clone(), n.clone()));
                let at = |id: &Ident| View {
                    base: a.base.clone(),
                    off: Some(Ex::Var(id.clone())),
                    dims: d.clone(),
                };
                (Loc::View(at(&c)), Loc::View(at(&n)))
            }
            t => {
                let c = self.scalar_place(t, "acc", code);
                let n = self.scalar_place(t, "next", code);
                steps.push(Step::Take(c.clone(), n.clone()));
                (Loc::Scalar(c), Loc::Scalar(n))
            }
        }
    }

    /// An `ifold` with a tuple state, into `dest`.
    fn ifold_parts(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        if let Some(code) = self.accumulate_parts(e, dest) {
            return code;
        }
        if let Some(code) = self.update_parts_in_place(e, dest) {
            return code;
        }
        if let Some(code) = self.fold_in_place(e, dest) {
            return code;
        }
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        if has_array(&e.ty) && self.heap.is_none() {
            return self.ifold_parts_in_pairs(e, dest);
        }
        let mut code = Vec::new();
        let mut steps = Vec::new();
        let (cur, nxt) = self.acc_places(&e.ty, *acc, false, e.span, &mut code, &mut steps);
        let arrays = steps.iter().any(|s| matches!(s, Step::Swap(..)));
        code.extend(self.write_parts(init, &cur));
        let nt = self.scalar(n);
        let iv = self.local(*i);
        self.env.insert(*i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(*i, s.clone());
        }
        self.env.insert(*acc, cur.clone());
        if arrays {
            self.enter_plain_loop(*i, &iv);
        } else {
            self.enter_loop(*i, &iv);
        }
        let mut step = self.write_parts(body, &nxt);
        step.extend(steps.into_iter().map(Step::code));
        let streams = if arrays {
            self.loops.pop();
            Vec::new()
        } else {
            self.leave_loop_sts(&mut step, None)
        };
        code.push(St::For {
            var: iv,
            n: nt,
            streams,
            body: step,
        });
        code.extend(self.copy_loc(&cur, dest));
        vec![St::Block(code)]
    }

    /// An `iterate` whose state is a tuple or an array, into `dest` (LANGUAGE.md section
    /// 14): the state in places of its own (arrays in two buffers of the frame, swapped after
    /// each step), `while cond { next into the other places; take them }`, then copied out.
    /// Nothing grows with the step count.
    pub(super) fn iterate_parts(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        if has_array(&e.ty) && self.heap.is_none() {
            return self.iterate_in_pairs(e, dest);
        }
        let Kind::Iterate(init, s, cond, t, next) = &e.kind else {
            return Vec::new();
        };
        let mut code = Vec::new();
        let mut steps = Vec::new();
        let (cur, nxt) = self.acc_places(&e.ty, *s, false, e.span, &mut code, &mut steps);
        code.extend(self.write_parts(init, &cur));
        self.env.insert(*s, cur.clone());
        self.env.insert(*t, cur.clone());
        let depth = self.frame.depth();
        let c = self.scalar(cond);
        self.frame.truncate(depth);
        let holds = cond_in_step(cond, *s, *t, &e.ty, e.span);
        let mut step = self.guarded(&holds, true, |d| d.write_parts(next, &nxt));
        self.frame.truncate(depth);
        step.extend(steps.into_iter().map(Step::code));
        code.push(St::While(c, step));
        code.extend(self.copy_loc(&cur, dest));
        vec![St::Block(code)]
    }

    /// An `iterate` whose state holds arrays (LANGUAGE.md section 14), into `dest`: each array
    /// in its destination (`a`) and one buffer of the frame (`b`), the steps taking them in
    /// turn, two a turn, as [`Dps::ifold_parts_in_pairs`] does for a count known before the
    /// loop: `go = cond(a); while go { a -> b; if cond(b) { b -> a; go = cond(a) } else {
    /// copy b to a; go = false } }`. No offsets swapped, and no copy but after an odd number
    /// of steps (the state in two buffers of the frame, swapped, then copied out, took one
    /// buffer more and a copy always).
    fn iterate_in_pairs(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        let Kind::Iterate(init, s, cond, t, next) = &e.kind else {
            return Vec::new();
        };
        let mut code = Vec::new();
        let mut steps = Vec::new();
        let (a, b) = self.iterate_places(&e.ty, dest, *s, e.span, &mut code, &mut steps);
        code.extend(self.write_parts(init, &a));
        let takes: Vec<St> = steps.into_iter().map(Step::code).collect();
        let holds = cond_in_step(cond, *s, *t, &e.ty, e.span);
        // The condition of the state in `at`.
        let test = |d: &mut Self, at: &Loc| -> Ex {
            d.env.insert(*s, at.clone());
            let depth = d.frame.depth();
            let c = d.scalar(cond);
            d.frame.truncate(depth);
            c
        };
        // One step from `from` into `to`, knowing the condition holds.
        let step = |d: &mut Self, from: &Loc, to: &Loc| -> Vec<St> {
            d.env.insert(*t, from.clone());
            let depth = d.frame.depth();
            let mut out = d.guarded(&holds, true, |d| d.write_parts(next, to));
            d.frame.truncate(depth);
            out.extend(takes.iter().cloned());
            out
        };
        let go = self.temp("go");
        let first = test(self, &a);
        code.push(St::Let {
            id: go.clone(),
            mutable: true,
            usize_ty: false,
            val: first,
        });
        // The state after a step into `b`: its arrays there, its scalars where they are taken.
        let at_b = arrays_of(&b, &a);
        let mut body = step(self, &a, &b);
        let more = test(self, &at_b);
        let mut back = step(self, &at_b, &arrays_of(&a, &b));
        back.push(St::Assign(go.clone(), test(self, &a)));
        let mut last = self.copy_loc(&at_b, &a);
        last.push(St::Assign(go.clone(), Ex::Bool(false)));
        body.push(St::If(more, back, last));
        code.push(St::While(Ex::Var(go), body));
        code.extend(self.copy_loc(&a, dest));
        vec![St::Block(code)]
    }

    /// The two places of [`Dps::iterate_in_pairs`]: each array in its destination, when it
    /// has one, and a buffer of the frame; each scalar in a local and its next value.
    fn iterate_places(
        &mut self,
        t: &Type,
        dest: &Loc,
        s: VarId,
        span: Sp,
        code: &mut Vec<St>,
        steps: &mut Vec<Step>,
    ) -> (Loc, Loc) {
        match t {
            Type::Tuple(ts) => {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                for (k, x) in ts.iter().enumerate() {
                    let d = match dest {
                        Loc::Tuple(ds) => ds.get(k).cloned().unwrap_or(Loc::Nowhere),
                        _ => Loc::Nowhere,
                    };
                    let (p, q) = self.iterate_places(x, &d, s, span, code, steps);
                    a.push(p);
                    b.push(q);
                }
                (Loc::Tuple(a), Loc::Tuple(b))
            }
            Type::Arr(elem, d) => {
                // The loop's state in two buffers, as a fold's accumulator.
                let mut buffer = |this: &mut Self, first: bool| {
                    let holds = Holds::Acc { acc: s, first };
                    let (marker, w) = this.alloc(*elem, d, holds, span);
                    code.push(marker);
                    w
                };
                let a = match dest {
                    Loc::View(w) => View {
                        dims: d.clone(),
                        ..w.clone()
                    },
                    _ => buffer(self, true),
                };
                let b = buffer(self, false);
                (Loc::View(a), Loc::View(b))
            }
            // A scalar: a local and its next value, as a fold's.
            t => self.acc_places(t, s, true, span, code, steps),
        }
    }

    /// An `ifold` whose state is an array or a tuple holding arrays, into `dest`: each
    /// array in two buffers
    /// of the frame that the steps take in turn, two steps a turn (`a` to `b`, then `b` to
    /// `a`), so every step reads and writes buffers at fixed offsets (no offsets swapped at
    /// run time, whose loads LLVM could neither prove in bounds nor vectorise). An odd
    /// count's first step runs apart, its state copied back to `a` once.
    pub(super) fn ifold_parts_in_pairs(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        let mut code = Vec::new();
        let mut steps = Vec::new();
        let mut single = Vec::new();
        let (a, b) = self.pair_places(e, dest, &mut code, &mut steps, &mut single);
        code.extend(self.write_parts(init, &a));
        let count = self.temp("steps");
        let nt = self.scalar(n);
        code.push(St::let_usize(&count, nt));
        let iv = self.local(*i);
        self.env.insert(*i, Loc::Scalar(iv.clone()));
        if let Some(s) = &n.sym {
            self.bounds.insert(*i, s.clone());
        }
        let takes: Vec<St> = steps.iter().map(|s| s.clone().code()).collect();
        // Step `index`: the state read from `from`, the next written to `to`.
        let step = |d: &mut Self, from: &Loc, to: &Loc, index: Ex| -> St {
            d.env.insert(*acc, from.clone());
            d.enter_plain_loop(*i, &iv);
            let mut code = vec![St::let_usize(&iv, index)];
            // A component updated in place in an output is replaced, read in part or not.
            code.extend(d.restated_all(&single));
            code.extend(d.write_parts(body, to));
            code.extend(takes.iter().cloned());
            d.loops.pop();
            St::Block(code)
        };
        let odd = Ex::Bin(
            BinOp::Rem,
            Box::new(Ex::Var(count.clone())),
            Box::new(Ex::Usize(2)),
        );
        let is_odd = Ex::Bin(BinOp::Eq, Box::new(odd.clone()), Box::new(Ex::Usize(1)));
        let mut first = vec![step(self, &a, &b, Ex::Usize(0))];
        first.extend(self.copy_loc(&b, &a));
        code.push(St::If(is_odd, first, Vec::new()));
        let pair = self.temp("pair");
        let at = wadd(wmul(Ex::Var(pair.clone()), Ex::Usize(2)), odd);
        let there = step(self, &a, &b, at.clone());
        // Back: the arrays from `b` to `a`, the scalars as every step takes them (read from
        // their current local, written to their next one).
        let back = step(
            self,
            &arrays_of(&b, &a),
            &arrays_of(&a, &b),
            wadd(at, Ex::Usize(1)),
        );
        code.push(St::For {
            var: pair,
            n: Ex::Bin(BinOp::Div, Box::new(Ex::Var(count)), Box::new(Ex::Usize(2))),
            streams: Vec::new(),
            body: vec![there, back],
        });
        code.extend(self.copy_loc(&a, dest));
        vec![St::Block(code)]
    }

    /// Row `r` of view `w`.
    pub(super) fn row(&mut self, w: &View, r: Ex) -> View {
        let rows = w.dims[1..].to_vec();
        let off = match self.stride(&rows) {
            Some(st) => plus(&w.off, wmul(r, st)),
            None => plus(&w.off, r),
        };
        View {
            base: w.base.clone(),
            off: Some(off),
            dims: rows,
        }
    }

    /// Bind `v` to a tuple value's places.
    pub(super) fn bind_tuple(&mut self, v: VarId, a: &Core) -> Vec<St> {
        if self.narrowed() {
            self.narrowed_lets.insert(v);
        }
        let (pre, loc) = self.locate(a);
        self.env.insert(v, loc);
        pre
    }

    /// A view written without destination views (`views = false`): each array argument
    /// stored in the frame (unless it is already in memory), then copied into place.
    pub(super) fn stored_view(&mut self, e: &Core, dest: &View) -> Vec<St> {
        let depth = self.frame.depth();
        let mut code = Vec::new();
        let parts: Vec<&Core> = match &e.kind {
            Kind::Concat(a, b) => vec![a, b],
            Kind::Reshape(a) => vec![a],
            _ => Vec::new(),
        };
        let mut at = dest.off.clone();
        for p in parts {
            let (pre, w) = self.view(p);
            code.extend(pre);
            let into = View {
                base: dest.base.clone(),
                off: at.clone(),
                dims: w.dims.clone(),
            };
            code.push(self.copy(&w, &into));
            let len = self.sizes.get(&p.ty.slots());
            at = Some(plus(&at, len));
        }
        self.frame.truncate(depth);
        vec![St::Block(code)]
    }

    /// `concat(a, b)` into `dest`: a into its first rows, b into the rest.
    pub(super) fn concat(&mut self, a: &Core, b: &Core, dest: &View) -> Vec<St> {
        let rows = dest.dims[1..].to_vec();
        let first = a.ty.dims()[0].clone();
        let skip = rows.iter().cloned().fold(first.clone(), Size::times);
        let skip = self.sizes.get(&skip);
        let da = View {
            base: dest.base.clone(),
            off: dest.off.clone(),
            dims: a.ty.dims().to_vec(),
        };
        let db = View {
            base: dest.base.clone(),
            off: Some(plus(&dest.off, skip)),
            dims: b.ty.dims().to_vec(),
        };
        let depth = self.frame.depth();
        let mut code = self.write(a, &da);
        self.frame.truncate(depth);
        code.extend(self.write(b, &db));
        self.frame.truncate(depth);
        code
    }
}

/// Component k of a tuple's places.
fn part(loc: Loc, k: usize) -> Loc {
    match loc {
        Loc::Tuple(mut ls) if k < ls.len() => ls.swap_remove(k),
        _ => Loc::Scalar(format_ident!("__internal")),
    }
}

/// Whether a value of type `t` holds an array.
fn has_array(t: &Type) -> bool {
    match t {
        Type::Arr(..) => true,
        Type::Tuple(ts) => ts.iter().any(has_array),
        _ => false,
    }
}

/// `scalars` with its arrays' places taken from `arrays` (two places of one tuple type).
fn arrays_of(arrays: &Loc, scalars: &Loc) -> Loc {
    match (arrays, scalars) {
        (Loc::Tuple(xs), Loc::Tuple(ys)) => {
            Loc::Tuple(xs.iter().zip(ys).map(|(x, y)| arrays_of(x, y)).collect())
        }
        (Loc::View(w), _) => Loc::View(w.clone()),
        (_, other) => other.clone(),
    }
}

/// True when two views are the same place (the same buffer from the same offset).
fn same_view(a: &View, b: &View) -> bool {
    a.base == b.base
        && match (&a.off, &b.off) {
            (None, None) => true,
            (Some(x), Some(y)) => crate::lir::same(x, y),
            _ => false,
        }
}
