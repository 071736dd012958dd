//! Loops in reverse: steps independent of each other (a `build`, a sum-fold), summed by one
//! fold whose state adds up every variable's contributions and which nested sums continue;
//! and folds whose state carries, reversed from their checkpoints.

use super::terms::sum_step;
use super::{
    Adjoints, CARRIED, Lets, Reverse, Unsupported, add, at, index, part, pick, proj, tuple, var,
};
use crate::front::ast::{BinOp, Sp};
use crate::front::size::Size;
use crate::middle::forward::{bin, is_zero, wrap};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use std::collections::{BTreeMap, HashMap, HashSet};

/// For each variable `e` reads, whether it occurs only as `y[i]`, read at loop index `i`
/// (`own[y]` true), or otherwise too (false).
fn own_reads(e: &Core, i: VarId, own: &mut BTreeMap<VarId, bool>) {
    if let Kind::Index(a, k) = &e.kind
        && let (Kind::Var(y), Kind::Var(j)) = (&a.kind, &k.kind)
        && *j == i
    {
        own.entry(*y).or_insert(true);
        return;
    }
    if let Kind::Var(y) = &e.kind {
        own.insert(*y, false);
    }
    for c in e.children() {
        own_reads(c, i, own);
    }
}

/// `e` with each read `y[i]` of a variable of `by` replaced by its element variable.
fn replace_reads(e: &mut Core, i: VarId, by: &HashMap<VarId, VarId>) {
    if let Kind::Index(a, k) = &e.kind
        && let (Kind::Var(y), Kind::Var(j)) = (&a.kind, &k.kind)
        && *j == i
        && let Some(to) = by.get(y)
    {
        e.kind = Kind::Var(*to);
        e.sym = None;
        return;
    }
    for c in e.children_mut() {
        replace_reads(c, i, by);
    }
}

/// A sum-fold's value, summed by its reverse sweep beside the adjoints.
pub(super) struct Sum {
    /// The variable the fold is bound to, bound again to the sweep's sum.
    var: VarId,
    /// Its type.
    ty: Type,
    /// The fold's first state (a copy).
    start: Core,
}

/// A loop's count, as a `usize` value and as a size when it has one.
pub(super) struct Count {
    pub(super) value: Core,
    pub(super) size: Option<Size>,
}

/// A sum widened to a fold's whole state: count, state, index, step.
pub(super) type WidenedSum = (Box<Core>, VarId, VarId, Box<Core>);

impl Reverse<'_> {
    /// The sweep of `let x = value` when `value` is a sum-fold and no binding after `x`'s
    /// reads `x` (the `let` chain's own value may): as [`Reverse::back`]'s, and the fold
    /// over the steps sums the fold's value too, `x` bound again to that sum. One pass over
    /// the steps instead of two, each step's values computed once; the same additions in the
    /// same order, so the value is the fold's to the bit. False when `value` is no such fold
    /// (nothing done).
    pub(super) fn sum_with_value(
        &mut self,
        x: VarId,
        value: &Core,
        s: &Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<bool, Unsupported> {
        let Kind::Ifold(n, init, acc, i, body) = &value.kind else {
            return Ok(false);
        };
        // Not sums side by side (a tuple): their value is computed apart.
        if value.ty.is_tuple() {
            return Ok(false);
        }
        let Some(term) = sum_step(body, *acc) else {
            return Ok(false);
        };
        let Some(pos) = lets.iter().position(|(v, _)| *v == x) else {
            return Ok(false);
        };
        if is_zero(s) || self.read_after(x, pos, s, lets, adj) {
            return Ok(false);
        }
        let count = Count {
            value: (**n).clone(),
            size: n.sym.clone(),
        };
        self.back(init, s, lets, adj)?;
        let sum = Sum {
            var: x,
            ty: value.ty.clone(),
            start: fresh((**init).clone(), self.names),
        };
        if self.steps(&count, *i, &term, s.clone(), Some(sum), lets, adj)? {
            // Bindings that read `x` (none needed, see `read_after`) follow its new binding.
            let (mut kept, mut after) = (Lets::new(), Lets::new());
            let mut moved = HashSet::from([x]);
            let last = lets.len() - 1;
            for (k, (y, v)) in std::mem::take(lets).into_iter().enumerate() {
                if k < last && moved.iter().any(|m| v.mentions(*m)) {
                    moved.insert(y);
                    after.push((y, v));
                } else {
                    kept.push((y, v));
                }
            }
            kept.extend(after);
            *lets = kept;
        }
        Ok(true)
    }

    /// Steps of a literal count `unroll` would write out (at most
    /// [`crate::middle::unroll::MAX_TRIPS`], within its budget), reversed as written out:
    /// each step's body with its index a constant, reversed in turn, its contributions
    /// gathered with the others of the enclosing sweep. The derivative of `sum(build(3, |k|
    /// sqnorm(sub(x[f[j][k]], x[f[j][(k + 1) % 3]]))))` is then the written-out sum's: one
    /// update of each of the three rows the corners name, not two a step over a loop of
    /// three (LANGUAGE.md section 13: a loop of literal count costs the same written out or
    /// not). False when the count is no such literal (nothing done).
    fn written_out(
        &mut self,
        count: &Count,
        i: VarId,
        body: &Core,
        step: &Core,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<bool, Unsupported> {
        use crate::middle::unroll::{BUDGET, MAX_TRIPS};
        let Some(n) = count.size.as_ref().and_then(Size::as_const) else {
            return Ok(false);
        };
        if !self.reads_through(body, i) {
            return Ok(false);
        }
        let size = crate::middle::ir::nodes(body).saturating_add(crate::middle::ir::nodes(step));
        if !(1..=MAX_TRIPS).contains(&n) || size.saturating_mul(n as usize) > BUDGET {
            return Ok(false);
        }
        let span = body.span;
        for k in 0..n {
            let at_k = Core::size(Size::Lit(k), span);
            let mut b = fresh(body.clone(), self.names);
            b.subst(i, &at_k);
            crate::middle::simplify::fold(&mut b);
            let mut s = step.clone();
            s.subst(i, &at_k);
            crate::middle::simplify::fold(&mut s);
            let s = self.atom(s, "adj", lets);
            self.back(&b, &s, lets, adj)?;
        }
        Ok(true)
    }

    /// Whether `e` reads an active array at an index that depends on `i` other than `i`
    /// itself (`x[f[j][k]]`, `x[(k + 1) % 3]`): the rows a step's contributions go to then
    /// change with the step, and written out, steps naming the same row share its update.
    /// Reads at `i` alone (a coordinate loop's `a[k] - b[k]`) keep the loop: its adjoint is
    /// a `build`, one row of values.
    fn reads_through(&self, e: &Core, i: VarId) -> bool {
        if let Kind::Index(a, k) = &e.kind
            && let Kind::Var(y) = &a.kind
            && self.active.contains(y)
            && k.mentions(i)
            && !matches!(k.kind, Kind::Var(j) if j == i)
        {
            return true;
        }
        e.children().any(|c| self.reads_through(c, i))
    }

    /// Whether a binding after `lets[pos]` that is still needed reads `x`: needed by the
    /// adjoint `s`, a contribution not yet summed, a value computed after the sweep, or
    /// another needed binding. (The scalar rules bind operands' values some never read.)
    fn read_after(&self, x: VarId, pos: usize, s: &Core, lets: &Lets, adj: &Adjoints) -> bool {
        let mut needed = HashSet::new();
        s.occurring(&mut needed);
        adj.values()
            .flatten()
            .for_each(|c| c.occurring(&mut needed));
        self.pending.iter().for_each(|c| c.occurring(&mut needed));
        needed.remove(&x);
        for (y, value) in lets[pos + 1..].iter().rev() {
            if needed.contains(y) {
                if value.mentions(x) {
                    return true;
                }
                value.occurring(&mut needed);
            }
        }
        false
    }

    /// Steps independent of each other: `body` run for `i` in `0..count`, step `i`'s value
    /// having adjoint `step` (which may read `i`). When the steps' only contributions are to
    /// one array read at `i` alone (a map), its adjoint is a `build`; otherwise one fold sums
    /// every variable's contributions over the steps, and the steps' values too when `sum`
    /// asks (its variable then bound again, after the fold, and its first binding dropped).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn steps(
        &mut self,
        count: &Count,
        i: VarId,
        body: &Core,
        step: Core,
        sum: Option<Sum>,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<bool, Unsupported> {
        let span = body.span;
        let mut reads = BTreeMap::new();
        own_reads(body, i, &mut reads);
        // A kept row read at `i` (see `keep`): its value's reads are the step's too, as the
        // step's reverse goes through that value.
        let mut kept_rows = Vec::new();
        for (y, all) in &reads {
            if *all && let Some(value) = self.kept_row(*y, i, span) {
                kept_rows.push((*y, value));
            }
        }
        for (_, value) in &kept_rows {
            own_reads(value, i, &mut reads);
        }
        if sum.is_none()
            && kept_rows.is_empty()
            && self.written_out(count, i, body, &step, lets, adj)?
        {
            return Ok(false);
        }
        let own: Vec<VarId> = reads
            .into_iter()
            .filter(|(y, all)| *all && self.active.contains(y))
            .map(|(y, _)| y)
            .collect();
        let mut elements = HashMap::new();
        let mut inner = Lets::new();
        for y in &own {
            let ty = self.types[y].clone();
            let name = format!("{}_i", self.names[*y as usize]);
            let yi = self.new_var(&name);
            self.activate(yi, &ty.elem());
            inner.push((yi, at(var(*y, &ty, span), index(i, span))));
            elements.insert(*y, yi);
        }
        let mut body = body.clone();
        replace_reads(&mut body, i, &elements);
        let s = self.atom(step, "adj", &mut inner);
        let value = sum.as_ref().map(|_| self.value_after(&body, &s));
        let mut found = Adjoints::new();
        self.back(&body, &s, &mut inner, &mut found)?;
        // A kept row's adjoint goes on through the row's value in this step, its primal
        // values (not the row) recomputed here: the kept array itself gets no adjoint.
        for (y, mut value) in kept_rows {
            let Some(&yi) = elements.get(&y) else {
                continue;
            };
            let Some(cs) = found.remove(&yi) else {
                continue;
            };
            replace_reads(&mut value, i, &elements);
            let ty = value.ty.clone();
            let total = self.total(cs, &ty, span, &mut inner);
            let total = self.atom(total, "adj", &mut inner);
            self.back(&value, &total, &mut inner, &mut found)?;
        }
        // A map (one array, read at `i` alone): its adjoint is a `build`, element `i` from
        // step `i`.
        let element_of: HashMap<VarId, VarId> = elements.iter().map(|(y, yi)| (*yi, *y)).collect();
        if found.len() == 1
            && let Some((yi, cs)) = found.pop_first()
        {
            if let Some(&y) = element_of.get(&yi) {
                let ty = self.types[&y].clone();
                let total = self.total(cs, &ty.elem(), span, &mut inner);
                let dim = ty.dims()[0].clone();
                let zero = self.zero(&ty.elem(), span);
                let value = wrap(inner, total);
                let value = match &count.size {
                    Some(n) if n.same(&dim) => value,
                    _ => pick(
                        bin(BinOp::Lt, index(i, span), count.value.clone()),
                        value,
                        zero,
                    ),
                };
                let rows = Core::new(Kind::Build(dim, i, Box::new(value)), ty, span);
                let rows = fresh(rows, self.names);
                let rows = self.atom(rows, "adj", lets);
                add(adj, y, rows);
                return Ok(false);
            }
            found.insert(yi, cs);
        }
        // Otherwise one fold over the steps sums every variable's contributions, so each
        // step's values are computed once for all of them; an element read at `i` adds to
        // row `i` of its array.
        let mut parts: Vec<(VarId, Type, Vec<Core>)> = Vec::new();
        for (v, cs) in std::mem::take(&mut found) {
            match element_of.get(&v) {
                Some(&y) => {
                    let ty = self.types[&y].clone();
                    let total = self.total(cs, &ty.elem(), span, &mut inner);
                    let total = self.atom(total, "adj", &mut inner);
                    let row = self.one_hot(&ty, index(i, span), &total, span);
                    let row = self.atom(row, "adj", &mut inner);
                    match parts.iter_mut().find(|(x, ..)| *x == y) {
                        Some(part) => part.2.push(row),
                        None => parts.push((y, ty, vec![row])),
                    }
                }
                None => {
                    let ty = self.types[&v].clone();
                    match parts.iter_mut().find(|(x, ..)| *x == v) {
                        Some(part) => part.2.extend(cs),
                        None => parts.push((v, ty, cs)),
                    }
                }
            }
        }
        if parts.is_empty() {
            return Ok(false);
        }
        let adjoints = parts.len();
        // Steps `unroll` writes out start from `-0.0` (see `negative_zero`).
        let written_out = count
            .size
            .as_ref()
            .and_then(|n| n.as_const())
            .is_some_and(|n| n <= crate::middle::unroll::MAX_TRIPS);
        let mut starts: Vec<Core> = parts
            .iter()
            .map(|(_, t, _)| {
                let zero = self.zero(t, span);
                if written_out {
                    negative_zero(zero)
                } else {
                    zero
                }
            })
            .collect();
        if let (Some(sum), Some(value)) = (sum, value) {
            let value = self.atom(value, "value", &mut inner);
            self.pending.push(value.clone());
            parts.push((sum.var, sum.ty, vec![value]));
            starts.push(sum.start);
            lets.retain(|(v, _)| *v != sum.var);
        }
        let width = parts.len();
        let start = tuple(starts, span);
        let state_ty = start.ty.clone();
        let state = self.new_var("adj");
        let mut next = inner;
        let passed = self
            .pass_into(state, &state_ty, &parts, &mut next, span)
            .or_else(|| self.pass_rows_into(state, &state_ty, &parts, &mut next, span));
        let step = match passed {
            Some(step) => step,
            None => {
                let mut each = Vec::new();
                for (k, (_, ty, cs)) in parts.iter().enumerate() {
                    let sum = part(var(state, &state_ty, span), k, width);
                    each.push(self.accumulated(sum, cs.clone(), ty, span, &mut next));
                }
                tuple(each, span)
            }
        };
        let fold = Core::new(
            Kind::Ifold(
                Box::new(count.value.clone()),
                Box::new(start),
                state,
                i,
                Box::new(wrap(next, step)),
            ),
            state_ty,
            span,
        );
        let fold = fresh(fold, self.names);
        let sums = self.atom(fold, "adj", lets);
        for (k, (v, ..)) in parts.iter().enumerate() {
            if k < adjoints {
                add(adj, *v, part(sums.clone(), k, width));
            } else {
                lets.push((*v, part(sums.clone(), k, width)));
            }
        }
        Ok(width > adjoints)
    }

    /// The step of a fold with tuple state `state` summing `parts`, when their contributions
    /// include every component of one sum from zero (a fold bound in `lets`, read nowhere
    /// else, and no carried fold's sweep: [`CARRIED`]): that fold, started from the state plus the other contributions, its state
    /// widened to the whole state (the components it does not add to pass through), so
    /// that every addition goes to the one state, in place.
    fn pass_into(
        &mut self,
        state: VarId,
        state_ty: &Type,
        parts: &[(VarId, Type, Vec<Core>)],
        lets: &mut Lets,
        span: Sp,
    ) -> Option<Core> {
        let (pos, feeds) = (0..lets.len()).rev().find_map(|pos| {
            let (x, value) = &lets[pos];
            if !self.is_sum_from_zero(*x, value) || lets.iter().any(|(_, v)| v.mentions(*x)) {
                return None;
            }
            let tys: Vec<Type> = match &value.ty {
                Type::Tuple(ts) => ts.clone(),
                t => vec![t.clone()],
            };
            let mut feeds: Vec<Option<usize>> = vec![None; tys.len()];
            for (k, (_, ty, cs)) in parts.iter().enumerate() {
                for c in cs.iter().filter(|c| c.mentions(*x)) {
                    let j = match &c.kind {
                        Kind::Var(v) if *v == *x && tys.len() == 1 => 0,
                        Kind::Proj(t, j) if matches!(t.kind, Kind::Var(v) if v == *x) => *j,
                        _ => return None,
                    };
                    if feeds[j].is_some() || !tys[j].same(ty) {
                        return None;
                    }
                    feeds[j] = Some(k);
                }
            }
            let feeds: Option<Vec<usize>> = feeds.into_iter().collect();
            Some((pos, feeds?))
        })?;
        // The fold's body, its state's components renumbered as the whole state's.
        let (x, sum) = self.widened(lets, pos, &mut |_, body, from, to, tuple| {
            let widen = Widen {
                tuple,
                feeds: &feeds,
                ty: state_ty,
            };
            widen.step(body, from, to)
        })?;
        lets.remove(pos);
        Some(self.continued(state, state_ty, parts, sum, &|c| !c.mentions(x), lets, span))
    }

    /// The sum from zero bound at `lets[pos]` (its variable, then the sum as
    /// [`Reverse::continued`] takes it: count, state, index, step), its step rewritten by
    /// `widen` from the fold's own state to a fresh one (`widen` is told whether the fold's
    /// state is a tuple); `None` when `widen` refuses.
    pub(super) fn widened(
        &mut self,
        lets: &Lets,
        pos: usize,
        widen: &mut dyn FnMut(&mut Self, &mut Core, VarId, VarId, bool) -> bool,
    ) -> Option<(VarId, WidenedSum)> {
        let (x, fold) = lets[pos].clone();
        let Kind::Ifold(m, _, inner, i, mut body) = fold.kind else {
            return None;
        };
        let to = self.new_var("adj");
        widen(self, &mut body, inner, to, fold.ty.is_tuple()).then_some((x, (m, to, i, body)))
    }

    /// Whether `value`, bound to `x`, is a sum over steps from zero that nothing computed
    /// after the sweep reads: no carried fold's sweep ([`CARRIED`]), whose state the steps
    /// transform.
    pub(super) fn is_sum_from_zero(&self, x: VarId, value: &Core) -> bool {
        let Kind::Ifold(_, init, st, ..) = &value.kind else {
            return false;
        };
        is_zero(init) && self.names[*st as usize] != CARRIED && !self.is_pending(x)
    }

    /// The fold `sum` (count, state, index, step: a sum widened to the state of type
    /// `state_ty`) started from each of `parts`' running sums in `state` plus the
    /// contributions `keep` keeps (those the fold does not already add).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn continued(
        &mut self,
        state: VarId,
        state_ty: &Type,
        parts: &[(VarId, Type, Vec<Core>)],
        sum: WidenedSum,
        keep: &dyn Fn(&Core) -> bool,
        lets: &mut Lets,
        span: Sp,
    ) -> Core {
        let width = parts.len();
        let starts = parts
            .iter()
            .enumerate()
            .map(|(k, (_, ty, cs))| {
                let rest = cs.iter().filter(|c| keep(c)).cloned().collect();
                let sum = part(var(state, state_ty, span), k, width);
                self.accumulated(sum, rest, ty, span, lets)
            })
            .collect();
        let (m, widened, i, body) = sum;
        Core::new(
            Kind::Ifold(m, Box::new(tuple(starts, span)), widened, i, body),
            state_ty.clone(),
            span,
        )
    }

    /// An `ifold` whose state carries from step to step (`s` the adjoint of its last state),
    /// or a `scan` (`rows` the adjoint of its states, `s` zero): the states kept by a `scan`,
    /// the steps reversed by an `ifold` whose state is the adjoint of the step's state and
    /// the sums of the other variables' contributions.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn carried(
        &mut self,
        count: &Count,
        init: &Core,
        acc: VarId,
        i: VarId,
        body: &Core,
        s: &Core,
        rows: Option<&Core>,
        lets: &mut Lets,
        adj: &mut Adjoints,
    ) -> Result<(), Unsupported> {
        let span = body.span;
        let n = match &count.size {
            Some(n) if !n.has_loop() => n.clone(),
            _ => return Err(Unsupported),
        };
        let sty = init.ty.clone();
        let start = fresh(init.clone(), self.names);
        let start = self.atom(start, "init", lets);
        let kept = Core::new(
            Kind::Scan(
                n.clone(),
                Box::new(start.clone()),
                acc,
                i,
                Box::new(body.clone()),
            ),
            sty.rows_of(&n),
            span,
        );
        let kept = fresh(kept, self.names);
        let states = self.atom(kept, "states", lets);
        // Reverse step t runs the body's step n - 1 - t from the state before it.
        let t = self.new_var("t");
        let one = Core::size(Size::Lit(1), span);
        let last = Core::usize_bin(
            BinOp::Sub,
            count.value.clone(),
            one.clone(),
            "count - 1",
            span,
        );
        let step_index = Core::usize_bin(BinOp::Sub, last, index(t, span), "count - 1 - t", span);
        let mut inner = Lets::new();
        let before_index =
            Core::usize_bin(BinOp::Sub, step_index.clone(), one, "count - 2 - t", span);
        let kept_row = self.rows_at(&states, before_index, &sty, span);
        let first = bin(
            BinOp::Eq,
            step_index.clone(),
            Core::size(Size::Lit(0), span),
        );
        inner.push((acc, pick(first, start.clone(), kept_row)));
        self.activate(acc, &sty);
        let after = self.new_var("adj");
        let mut step_adj = var(after, &sty, span);
        if let Some(rows) = rows {
            let here = self.rows_at(rows, step_index.clone(), &sty, span);
            let mut extra = Lets::new();
            step_adj = self.total(vec![step_adj, here], &sty, span, &mut extra);
            inner.extend(extra);
        }
        let sa = self.atom(step_adj, "adj", &mut inner);
        let mut body = body.clone();
        body.subst(i, &step_index);
        // A kept array (`keep`) of a `build` in the body was taken from the body before this
        // substitution: a row the sweep recomputes from it reads the step's index as well.
        let outer: Vec<(VarId, Core)> = self
            .kept
            .iter()
            .filter(|(_, rows)| rows.mentions(i))
            .map(|(y, rows)| (*y, rows.clone()))
            .collect();
        for (y, rows) in &outer {
            let mut rows = rows.clone();
            rows.subst(i, &step_index);
            self.kept.insert(*y, rows);
        }
        let mut found = Adjoints::new();
        let swept = self.back(&body, &sa, &mut inner, &mut found);
        self.kept.extend(outer);
        swept?;
        let to_acc = found.remove(&acc).unwrap_or_default();
        let to_acc = self.total(to_acc, &sty, span, &mut inner);
        let others: Vec<(VarId, Vec<Core>)> = found.into_iter().collect();
        let vars: Vec<VarId> = others.iter().map(|(v, _)| *v).collect();
        let mut tys = vec![sty.clone()];
        tys.extend(vars.iter().map(|v| self.types[v].clone()));
        let mut start_parts = vec![s.clone()];
        start_parts.extend(tys[1..].iter().map(|t| self.zero(t, span)));
        let begin = tuple(start_parts, span);
        let state_ty = begin.ty.clone();
        let state = self.new_var(CARRIED);
        let width = tys.len();
        let mut parts = vec![to_acc];
        for (k, (_, mut cs)) in others.into_iter().enumerate() {
            cs.push(part(var(state, &state_ty, span), k + 1, width));
            parts.push(self.total(cs, &tys[k + 1], span, &mut inner));
        }
        let mut step = vec![(after, part(var(state, &state_ty, span), 0, width))];
        step.extend(inner);
        let step = wrap(step, tuple(parts, span));
        let fold = Core::new(
            Kind::Ifold(
                Box::new(count.value.clone()),
                Box::new(begin),
                state,
                t,
                Box::new(step),
            ),
            state_ty,
            span,
        );
        let fold = fresh(fold, self.names);
        let result = self.atom(fold, "adj", lets);
        for (k, v) in vars.iter().enumerate() {
            add(adj, *v, part(result.clone(), k + 1, width));
        }
        let to_init = self.atom(part(result, 0, width), "adj", lets);
        self.back(init, &to_init, lets, adj)
    }

    /// Row `k` of `rows`, the states of a `scan` with state type `ty` (a tuple of arrays
    /// for a tuple state).
    fn rows_at(&mut self, rows: &Core, k: Core, ty: &Type, span: Sp) -> Core {
        match ty {
            Type::Tuple(ts) => tuple(
                ts.iter()
                    .enumerate()
                    .map(|(j, t)| self.rows_at(&proj(rows.clone(), j), k.clone(), t, span))
                    .collect(),
                span,
            ),
            _ => at(rows.clone(), k),
        }
    }
}

/// A sum's fold widened to the whole state of type `ty`: component `j` of the sum's state
/// (its only component unless `tuple`) is component `feeds[j]` of the whole state.
struct Widen<'a> {
    tuple: bool,
    feeds: &'a [usize],
    ty: &'a Type,
}

impl Widen<'_> {
    /// The step `e` of a fold with state `from`, as a step of one with the whole state `to`:
    /// its reads of the state renumbered, its value (or the start of a nested fold on the
    /// same state, whose step is widened likewise) given every component, those it does
    /// not add to passed through. False when `e` reads the state otherwise.
    fn step(&self, e: &mut Core, from: VarId, to: VarId) -> bool {
        if !self.renumber(e, from, to) {
            return false;
        }
        let tail = e.tail_mut();
        let ok = match &mut tail.kind {
            Kind::Ifold(_, init, s, _, body) => {
                let s = *s;
                self.value(init, to) && self.step(body, s, s)
            }
            _ => self.value(tail, to),
        };
        if ok {
            tail.ty = self.ty.clone();
            retype_tail(e, self.ty);
        }
        ok
    }

    /// The sum's next state `e` as the whole state's (its components placed by `feeds`, the
    /// others those of `to`).
    fn value(&self, e: &mut Core, to: VarId) -> bool {
        let Some(values) = components(e, self.tuple) else {
            return false;
        };
        let mut placed = vec![None; self.ty.parts().len().max(1)];
        for (j, v) in values.into_iter().enumerate() {
            placed[self.feeds[j]] = Some(v);
        }
        *e = whole_state(placed, to, self.ty, e.span);
        true
    }

    /// Every read of fold state `from` (component `j` of it when a tuple) made a read of
    /// component `feeds[j]` of `to`; false when `from` is read otherwise.
    fn renumber(&self, e: &mut Core, from: VarId, to: VarId) -> bool {
        let width = self.ty.parts().len().max(1);
        let read = |k: usize, span: Sp| part(var(to, self.ty, span), k, width);
        match &e.kind {
            Kind::Proj(t, j) if self.tuple && matches!(t.kind, Kind::Var(v) if v == from) => {
                *e = read(self.feeds[*j], e.span);
                return true;
            }
            Kind::Var(v) if *v == from => {
                if self.tuple {
                    return false;
                }
                *e = read(self.feeds[0], e.span);
                return true;
            }
            _ => {}
        }
        e.children_mut().all(|c| self.renumber(c, from, to))
    }
}

/// The components of a fold's next state `e` (itself unless `tuple`), taken out of it;
/// `None` when a tuple state's is no tuple expression.
pub(super) fn components(e: &mut Core, tuple: bool) -> Option<Vec<Core>> {
    match (&mut e.kind, tuple) {
        (Kind::Tuple(xs), true) => Some(std::mem::take(xs)),
        (_, false) => Some(vec![e.take()]),
        _ => None,
    }
}

/// The next value of a whole state `to` of type `ty`: the components `placed` gives, the
/// others passed through.
pub(super) fn whole_state(placed: Vec<Option<Core>>, to: VarId, ty: &Type, span: Sp) -> Core {
    let width = placed.len();
    let next = placed
        .into_iter()
        .enumerate()
        .map(|(k, x)| x.unwrap_or_else(|| part(var(to, ty, span), k, width)))
        .collect();
    tuple(next, span)
}

/// Give a `let` chain whose last expression changed type that type throughout.
pub(super) fn retype_tail(e: &mut Core, ty: &Type) {
    e.ty = ty.clone();
    if let Kind::Let(_, _, body) = &mut e.kind {
        retype_tail(body, ty);
    }
}

/// `zero` with its floats `-0.0` where it is a scalar or an array short enough for `unroll`
/// to write out: the start of a sum over steps that are written out. `-0.0` is the identity
/// of IEEE addition (`-0.0 + x` is `x` for every `x`, `-0.0` included; `0.0 + -0.0` is
/// `0.0`), so the first contribution added to it is itself, and `simplify` folds the
/// addition away (bundle adjustment's sweeps over 3-vectors: 45 additions of `0.0` gone).
/// A longer array keeps `0.0`: it stays a loop, and a fill of `0.0` is a `memset`, of `-0.0`
/// a loop of stores. Only the sign of a zero adjoint can differ (`-0.0` for `0.0`).
fn negative_zero(mut zero: Core) -> Core {
    if let Kind::Tuple(parts) = &mut zero.kind {
        for part in parts {
            *part = negative_zero(part.take());
        }
        return zero;
    }
    let short = zero
        .ty
        .dims()
        .iter()
        .try_fold(1u64, |n, d| Some(n * d.as_const()?));
    if short.is_some_and(|n| n <= crate::middle::unroll::MAX_TRIPS) {
        negate_zeros(&mut zero);
    }
    zero
}

/// Every float of `e` made `-0.0`.
fn negate_zeros(e: &mut Core) {
    if let Kind::Float(x) = &mut e.kind {
        *x = -0.0;
    }
    for c in e.children_mut() {
        negate_zeros(c);
    }
}
