//! Loop contexts and what they collect while their body is translated: streams (a row read
//! along the loop, cut once before it) and running indexes (a quadratic index kept as a
//! running sum). Loop IR passes over finished loops are in [`crate::lir`].

use crate::front::size::{Atom, Size};
use crate::lir::{self, Base, Ex, St, Stream, Wrap, plus, wadd, wmul};
use crate::lower::bounds::divisions_exact;
use crate::lower::dps::{Dps, LoopCtx, Run, View};
use crate::middle::ir::{Core, Kind, VarId};
use proc_macro2::Ident;
use quote::format_ident;

impl Dps<'_> {
    /// Open a loop context for index `var`.
    pub(super) fn enter_loop(&mut self, var: VarId, ident: &Ident) {
        self.loops.push(LoopCtx {
            var,
            ident: ident.clone(),
            streams: Vec::new(),
            accepts: true,
            runs: Vec::new(),
            runs_ok: false,
            lanes: false,
            narrowing: self.narrowing,
            unsure: Vec::new(),
            lets_before: self.lets_bound,
        });
    }

    /// Open a loop context that takes no streams (see [`LoopCtx::accepts`]).
    pub(super) fn enter_plain_loop(&mut self, var: VarId, ident: &Ident) {
        self.enter_loop(var, ident);
        if let Some(c) = self.loops.last_mut() {
            c.accepts = false;
        }
    }

    /// Close the innermost loop context. Streams whose buffer the body writes (`written`),
    /// or that the loop's own destination borrows (`writes`), become loads again: returned
    /// with the load that replaces each element. So does a stream whose start can fail (a
    /// row index checked against its count: `c[3]` read under `if i == 3`) or was proven
    /// only inside a branch ([`LoopCtx::unsure`]), unless every step reads it (`always`):
    /// computed before the loop, the start would fail, or wrap (`c[i - 1]` at `i = 0`), on
    /// steps that do not read the row. The rest are for the loop header.
    fn leave_loop(
        &mut self,
        writes: Option<&Base>,
        written: &dyn Fn(&Base) -> bool,
        always: &dyn Fn(&Ident) -> bool,
    ) -> (Vec<Stream>, Vec<(Ident, Back)>) {
        let Some(ctx) = self.loops.pop() else {
            return (Vec::new(), Vec::new());
        };
        let (mut keep, mut loads) = (Vec::new(), Vec::new());
        for st in ctx.streams {
            let unsure = !lir::plain_ex(&st.start) || ctx.unsure.contains(&st.elem);
            if writes == Some(&st.base) || written(&st.base) || unsure && !always(&st.elem) {
                let var = Ex::Var(ctx.ident.clone());
                let at = match &st.width {
                    // A strided read's row (`Dps::strided`): its loads `row[k]` become
                    // loads at `start + i * width + k`.
                    Some(w) => Back::Row(st.base, wadd(st.start.clone(), wmul(var, w.clone()))),
                    None => Back::Elem(Ex::Ld(st.base, Box::new(wadd(st.start.clone(), var)))),
                };
                loads.push((st.elem, at));
            } else {
                keep.push(st);
            }
        }
        (keep, loads)
    }

    /// [`Dps::leave_loop`] for a loop body of statements, the loads put in place.
    pub(super) fn leave_loop_sts(&mut self, body: &mut [St], writes: Option<&Base>) -> Vec<Stream> {
        let (keep, loads) = self.leave_loop(writes, &|b| lir::writes(body, b), &|x| {
            lir::read_every_step(body, x)
        });
        for (elem, back) in &loads {
            lir::rewrite_sts(body, &mut |e| back.put(e, elem));
        }
        keep
    }

    /// [`Dps::leave_loop`] for a loop body that is one scalar expression.
    pub(super) fn leave_loop_ex(&mut self, body: &mut Ex, writes: Option<&Base>) -> Vec<Stream> {
        let (keep, loads) = self.leave_loop(writes, &|b| lir::writes_ex(body, b), &|x| {
            lir::read_every_step_ex(body, x)
        });
        for (elem, back) in &loads {
            lir::rewrite_ex(body, &mut |e| back.put(e, elem));
        }
        keep
    }

    /// True when `e` reads buffer `b`: directly, or through a stream of an enclosing loop
    /// over `b` (which becomes a load of `b` when that loop closes, since the loop then
    /// writes `b`: a fill over `b` must not hold it borrowed around such a read).
    pub(super) fn reads(&self, e: &Ex, b: &Base) -> bool {
        if lir::uses_ex(e, b) {
            return true;
        }
        let elems: Vec<&Ident> = self
            .loops
            .iter()
            .flat_map(|c| c.streams.iter())
            .filter(|st| st.base == *b)
            .map(|st| &st.elem)
            .collect();
        let mut hit = false;
        lir::walk_ex(e, &mut |n| {
            // An element, or a load from a strided read's row.
            if let lir::Node::Ex(Ex::Elem(x) | Ex::Ld(Base::Row(x), _)) = n {
                hit |= elems.contains(&x);
            }
        });
        hit
    }

    /// The names `start` reads that `let`s bound before the loop at `pos` ([`Dps::lets`]):
    /// fixed while it runs. A name that is the index of that loop or of one inside it is not one of them, though
    /// a `let` of the same name came before (a build's index bound by a `let` in its peeled
    /// ends, then the index of its interchanged loop: the same variable, translated twice).
    fn lets_before(&self, pos: usize, start: &Ex) -> Vec<String> {
        let before = self.loops[pos].lets_before;
        let inside: Vec<String> = self.loops[pos..]
            .iter()
            .map(|c| c.ident.to_string())
            .collect();
        lir::idents(start)
            .iter()
            .map(|i| i.to_string())
            .filter(|s| !inside.contains(s) && self.lets.get(s).is_some_and(|n| *n < before))
            .collect()
    }

    /// The load `w[idx]` (`w` the view of `a`) as a stream of an enclosing loop, when `idx`
    /// is that loop's index plus an offset fixed during the loop: returns the element.
    pub(super) fn stream(&mut self, w: &View, idx: &Core, a: &Core) -> Option<Ex> {
        let sym = idx.sym.as_ref()?;
        let mut vars = Vec::new();
        sym.loops(&mut vars);
        let pos = self.loops.iter().rposition(|c| vars.contains(&c.var))?;
        if !self.loops[pos].accepts {
            return None;
        }
        let var = self.loops[pos].var;
        // A whole one-dimensional parameter read at the index of a loop over its length: the
        // entry check of that length already lets LLVM drop the bounds check; a stream would
        // only add work. (Over a shorter count, a peeled interior's `0..n - 2`, it does not.)
        if matches!(w.base, Base::Param(_))
            && !self.loops[pos].lanes
            && w.off.is_none()
            && w.dims.len() == 1
            && Size::minus(sym.clone(), Size::Loop(var)).as_const() == Some(0)
            && self.bounds.get(&var).is_some_and(|b| b.same(&w.dims[0]))
        {
            return None;
        }
        // The view's offset is part of the start: proven only inside a branch of the loop,
        // it holds only on the steps that take that branch.
        let unsure =
            self.narrowing > self.loops[pos].narrowing && !self.unguarded(|d| d.view_everywhere(a));
        if let Some(read) = self.strided(w, sym, pos, unsure) {
            return Some(read);
        }
        // idx = var + rest, with rest free of var and of every loop inside it.
        let rest = Size::minus(sym.clone(), Size::Loop(var)).poly();
        let inner: Vec<VarId> = self.loops[pos..].iter().map(|c| c.var).collect();
        let outer_loops: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|c| (c.var, c.ident.clone()))
            .collect();
        let rest = self.poly_ex(&rest, &inner, &outer_loops)?;
        let start = match rest {
            Some(r) => plus(&w.off, r),
            None => w.off.clone().unwrap_or(Ex::Usize(0)),
        };
        // A short loop of fixed length, from an offset fixed once the loops around it (short
        // and fixed too) unroll, becomes loads at constant offsets, which need no row cut
        // (kalman's 4 x 4 products in its frame).
        let short = |v: VarId| {
            self.bounds
                .get(&v)
                .and_then(|b| b.as_const())
                .is_some_and(|c| c <= 8)
        };
        let unrolled: Vec<String> = self.loops[..pos]
            .iter()
            .filter(|c| short(c.var))
            .map(|c| c.ident.to_string())
            .collect();
        if short(var)
            && lir::idents(&start)
                .iter()
                .all(|i| unrolled.contains(&i.to_string()))
        {
            return None;
        }
        // Everything `start` names must exist before the loop starts.
        let mut outer: Vec<String> = self.loops[..pos]
            .iter()
            .map(|c| c.ident.to_string())
            .collect();
        outer.extend(self.lets_before(pos, &start));
        if !idents_ok(&start, &outer) {
            return None;
        }
        let ctx = &mut self.loops[pos];
        if let Some(st) = ctx
            .streams
            .iter()
            .find(|st| st.base == w.base && st.width.is_none() && lir::same(&st.start, &start))
        {
            let elem = st.elem.clone();
            ctx.note_start(&elem, unsure, false);
            return Some(Ex::Elem(elem));
        }
        let elem = format_ident!("__e{}_{}", var, ctx.streams.len());
        ctx.streams.push(Stream {
            base: w.base.clone(),
            start,
            elem: elem.clone(),
            width: None,
        });
        ctx.note_start(&elem, unsure, true);
        Some(Ex::Elem(elem))
    }

    /// The load `w[idx]`, `idx = k * var + b + rest` for the index `var` of the loop at
    /// `pos`, a constant stride `k >= 2`, `b < k` and `rest` fixed during the loop, as
    /// element `b` of a row stream of width `k` from `rest` (a 2 x 2 block's `img[2 * r +
    /// a][2 * c + b]`, a decimation's `x[2 * i]`): one length test a step, no offset to
    /// compute and check. Only when every row `rest + k * var .. + k` the loop takes is
    /// proven in the view: the stream then has as many rows as the loop has steps.
    fn strided(&mut self, w: &View, sym: &Size, pos: usize, unsure: bool) -> Option<Ex> {
        let ctx = &self.loops[pos];
        if ctx.lanes {
            return None;
        }
        let var = ctx.var;
        let p = sym.poly();
        let mut stride = None;
        let mut b = 0i128;
        for (m, c) in p.coeffs() {
            if m.contains(&Atom::Loop(var)) {
                if m.len() != 1 || c.fract() != 0.0 || c < 2.0 || stride.is_some() {
                    return None;
                }
                stride = Some(c as u64);
            } else if m.is_empty() {
                b = c as i128;
            }
        }
        let k = stride?;
        let b = b.rem_euclid(i128::from(k));
        let aligned = Size::minus(
            Size::minus(sym.clone(), Size::times(Size::Lit(k), Size::Loop(var))),
            Size::Lit(b as u64),
        );
        let row = Size::plus(aligned.clone(), Size::times(Size::Lit(k), Size::Loop(var)));
        if !self.proven(&Some(row), &Size::Lit(k), &w.dims[0]) {
            return None;
        }
        let inner: Vec<VarId> = self.loops[pos..].iter().map(|c| c.var).collect();
        let outer_loops: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|c| (c.var, c.ident.clone()))
            .collect();
        let start = match self.poly_ex(&aligned.poly(), &inner, &outer_loops)? {
            Some(r) => plus(&w.off, r),
            None => w.off.clone().unwrap_or(Ex::Usize(0)),
        };
        let mut outer: Vec<String> = outer_loops.iter().map(|(_, i)| i.to_string()).collect();
        outer.extend(self.lets_before(pos, &start));
        if !idents_ok(&start, &outer) {
            return None;
        }
        let width = Ex::Usize(k as usize);
        let ctx = &mut self.loops[pos];
        let found = ctx.streams.iter().find(|st| {
            st.base == w.base
                && lir::same(&st.start, &start)
                && st.width.as_ref().is_some_and(|x| lir::same(x, &width))
        });
        let new = found.is_none();
        let elem = match found {
            Some(st) => st.elem.clone(),
            None => {
                let elem = format_ident!("__e{}_{}", var, ctx.streams.len());
                ctx.streams.push(Stream {
                    base: w.base.clone(),
                    start,
                    elem: elem.clone(),
                    width: Some(width),
                });
                elem
            }
        };
        ctx.note_start(&elem, unsure, new);
        Some(Ex::Ld(Base::Row(elem), Box::new(Ex::Usize(b as usize))))
    }

    /// A load at an index quadratic in the innermost loop's index, as a read at a running
    /// index ([`Run`]) when that loop is a fold's: the packed triangle's `q[d + c * (2 * d -
    /// c - 1) / 2 + (j - c - 1)]` costs two additions a term instead of a multiplication, a
    /// division and five additions. The index is already proven in bounds; the running sum
    /// equals it (modulo the word size, so exactly, since it is in bounds) when every
    /// division in it is exact for every value of the names and indexes it reads
    /// ([`divisions_exact`]). Where the term-by-term arithmetic would have failed on an
    /// overflow between in-bounds results, the running sum does not.
    pub(super) fn running(&mut self, w: &View, idx: &Core) -> Option<Ex> {
        let at = self.running_index(idx)?;
        Some(Ex::Ld(w.base.clone(), Box::new(plus(&w.off, at))))
    }

    /// The running index equal to `idx` in the innermost loop (see [`Dps::running`]), for a
    /// load or for the slot a step adds to.
    pub(super) fn running_index(&mut self, idx: &Core) -> Option<Ex> {
        let sym = idx.sym.as_ref()?;
        let pos = self.loops.len().checked_sub(1)?;
        let (c, runs_ok) = (self.loops[pos].var, self.loops[pos].runs_ok);
        let p = sym.poly();
        if !runs_ok || p.degree(&Atom::Loop(c)) != 2 || !divisions_exact(sym) {
            return None;
        }
        if let Some(r) = self.loops[pos].runs.iter().find(|r| r.sym.same(sym)) {
            return Some(Ex::Var(r.at.clone()));
        }
        let at = |k: u64| crate::middle::ir::subst_loop(sym, c, &Size::Lit(k));
        let step0 = Size::minus(at(1), at(0));
        let dstep = Size::minus(Size::plus(at(2), at(0)), Size::times(Size::Lit(2), at(1)));
        let outer: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|l| (l.var, l.ident.clone()))
            .collect();
        let names: Vec<String> = outer.iter().map(|(_, id)| id.to_string()).collect();
        let mut ex = |s: &Size| -> Option<Ex> {
            let e = self.signed_poly_ex(&s.poly(), &[c], &outer)?;
            idents_ok(&e, &names).then_some(e)
        };
        let (at0, step0, dstep) = (ex(&at(0))?, ex(&step0)?, ex(&dstep)?);
        let ctx = &mut self.loops[pos];
        let n = ctx.runs.len();
        let run = Run {
            sym: sym.clone(),
            at: format_ident!("__at{}_{}", c, n),
            step: format_ident!("__step{}_{}", c, n),
            at0,
            step0,
            dstep,
        };
        let at = Ex::Var(run.at.clone());
        ctx.runs.push(run);
        Some(at)
    }

    /// The innermost loop's running indexes, taken for [`run_code`].
    pub(super) fn take_runs(&mut self) -> Vec<Run> {
        self.loops
            .last_mut()
            .map(|c| std::mem::take(&mut c.runs))
            .unwrap_or_default()
    }

    /// A row index that reads a `let`-bound value, written from its symbolic value over the
    /// enclosing loops' indexes and the sizes (`y0 - 1` of `let y0 = y`, as `y - 1`), so that
    /// a view's offset names only what exists before the inner loops and their loads can be
    /// streams.
    pub(super) fn loop_index_expr(&mut self, i: &Core) -> Option<Ex> {
        let sym = i.sym.as_ref()?;
        if !sym.has_loop() || !divisions_exact(sym) || !self.reads_a_let(i) {
            return None;
        }
        let outer: Vec<(VarId, Ident)> = self
            .loops
            .iter()
            .map(|c| (c.var, c.ident.clone()))
            .collect();
        self.signed_poly_ex(&sym.poly(), &[], &outer)
    }

    /// Whether `e` reads a variable that is not an enclosing loop's index.
    fn reads_a_let(&self, e: &Core) -> bool {
        match e.kind {
            Kind::Var(v) => !self.loops.iter().any(|c| c.var == v),
            _ => e.children().any(|c| self.reads_a_let(c)),
        }
    }

    /// [`Dps::poly_ex`] with negative terms too: `pos - neg` in wrapping arithmetic (0 for
    /// the zero polynomial).
    fn signed_poly_ex(
        &mut self,
        p: &crate::front::size::Poly,
        inner: &[VarId],
        outer: &[(VarId, Ident)],
    ) -> Option<Ex> {
        let (pos, neg) = p.split_signs();
        let pos = self.poly_ex(&pos, inner, outer)?;
        let neg = self.poly_ex(&neg, inner, outer)?;
        Some(match (pos, neg) {
            (Some(a), Some(b)) => Ex::Wrap(Wrap::Sub, Box::new(a), Box::new(b)),
            (Some(a), None) => a,
            (None, Some(b)) => Ex::Wrap(Wrap::Sub, Box::new(Ex::Usize(0)), Box::new(b)),
            (None, None) => Ex::Usize(0),
        })
    }

    /// A polynomial over size names and the loop indexes of `outer` as an expression (`None`
    /// for zero), or `None` if it has other atoms or a negative or fractional coefficient.
    fn poly_ex(
        &mut self,
        p: &crate::front::size::Poly,
        inner: &[VarId],
        outer: &[(VarId, Ident)],
    ) -> Option<Option<Ex>> {
        let mut sum: Option<Ex> = None;
        for (m, c) in p.coeffs() {
            if c < 0.0 || c.fract() != 0.0 {
                return None;
            }
            let mut term: Option<Ex> = None;
            for a in m {
                let t = match a {
                    Atom::Name(n) => self.sizes.get(&Size::Name(n.clone())),
                    Atom::Loop(v) if !inner.contains(v) => {
                        let (_, id) = outer.iter().find(|(w, _)| w == v)?;
                        Ex::Var(id.clone())
                    }
                    _ => return None,
                };
                term = Some(match term {
                    Some(x) => wmul(x, t),
                    None => t,
                });
            }
            let k = c as usize;
            let term = match term {
                Some(t) if k == 1 => t,
                Some(t) => wmul(Ex::Usize(k), t),
                None => Ex::Usize(k),
            };
            sum = Some(match sum {
                Some(s) => wadd(s, term),
                None => term,
            });
        }
        Some(sum)
    }
}

impl LoopCtx {
    /// Record a read of stream `elem` (made for it when `new`) whose start was proven only
    /// inside a branch (`unsure`) or everywhere: one read proven everywhere proves the start,
    /// the same for every read, for all of them.
    fn note_start(&mut self, elem: &Ident, unsure: bool, new: bool) {
        if !unsure {
            self.unsure.retain(|x| x != elem);
        } else if new {
            self.unsure.push(elem.clone());
        }
    }
}

/// What a stream turned back into loads reads instead (see [`Dps::leave_loop`]).
enum Back {
    /// The element: this load.
    Elem(Ex),
    /// Element `k` of the row: a load of the buffer at this offset plus `k`.
    Row(Base, Ex),
}

impl Back {
    /// Put the load in place of `e` if `e` reads stream `elem`; whether it did.
    fn put(&self, e: &mut Ex, elem: &Ident) -> bool {
        match (self, &*e) {
            (Back::Elem(load), Ex::Elem(x)) if x == elem => {
                *e = load.clone();
                true
            }
            (Back::Row(base, start), Ex::Ld(Base::Row(x), k)) if x == elem => {
                *e = Ex::Ld(base.clone(), Box::new(wadd(start.clone(), (**k).clone())));
                true
            }
            _ => false,
        }
    }
}

/// The statements of running indexes: each starts before the loop (`pre`) and moves at the
/// end of every step (`body`), so the body must run to its end each step.
pub(super) fn run_code(runs: Vec<Run>, pre: &mut Vec<St>, body: &mut Vec<St>) {
    for r in runs {
        for (id, val) in [(&r.at, r.at0), (&r.step, r.step0)] {
            pre.push(St::Let {
                id: id.clone(),
                mutable: true,
                usize_ty: true,
                val,
            });
        }
        body.push(St::Assign(
            r.at.clone(),
            wadd(Ex::Var(r.at.clone()), Ex::Var(r.step.clone())),
        ));
        let moved = match r.dstep {
            Ex::Wrap(Wrap::Sub, z, b) if matches!(*z, Ex::Usize(0)) => {
                Ex::Wrap(Wrap::Sub, Box::new(Ex::Var(r.step.clone())), b)
            }
            d => wadd(Ex::Var(r.step.clone()), d),
        };
        body.push(St::Assign(r.step.clone(), moved));
    }
}

/// True when every identifier in `e` exists before a loop starts: sizes, size-table
/// locals, accumulator offsets and the given outer loop indexes.
pub(super) fn idents_ok(e: &Ex, outer: &[String]) -> bool {
    lir::idents(e).iter().all(|i| {
        let s = i.to_string();
        s.starts_with("__z")
            || s.starts_with("__cur_")
            || s.starts_with("__nxt_")
            || outer.contains(&s)
            || !s.contains('_')
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}
