//! Folds whose step replaces one row of the state (`build(m, |j| if j == r { new } else {
//! acc[j] })`, a scatter's update, a chain of transforms bone by bone): the row recognised
//! ([`row_choice`], also by `lower/increments.rs`), and the state updated in place, each row
//! computed (or written out as a literal) before it is stored over the old one.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, plus};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::folds::{lets_of, restated};
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, Type, VarId};
use quote::format_ident;

/// The parts of a step that replaces one row of its state: `lets` then `build(m, |j| if j ==
/// row { new } else { acc[j] })`.
struct RowUpdate<'a> {
    lets: Vec<(VarId, &'a Core)>,
    row: &'a Core,
    new: &'a Core,
    /// Each element of the new row reads, of the state, at most the same element of the
    /// row it replaces (`build(d, |e| old[e] + v[e])` with `old = acc[r]`): written over
    /// the row itself, with no row of the frame and no copy.
    elementwise: bool,
}

/// What one component of a fold's state does each step: replace one row (an array state,
/// updated in place), or take a new value (a scalar state, kept in a local).
enum PartStep<'a> {
    Row(RowUpdate<'a>),
    Value(&'a Core),
}

/// Whether `e` is variable `v`.
fn is_var(e: &Core, v: VarId) -> bool {
    matches!(e.kind, Kind::Var(w) if w == v)
}

/// A `build` choosing, at one row, a new value and elsewhere another: `build(n, |j| if j == r
/// { new } else { keep })`, or `r == j`, or `!=` with the branches the other way round.
pub(super) struct RowChoice<'a> {
    pub(super) count: &'a Size,
    pub(super) index: VarId,
    pub(super) row: &'a Core,
    pub(super) new: &'a Core,
    pub(super) keep: &'a Core,
}

/// `e` as a [`RowChoice`], when it is one.
pub(super) fn row_choice(e: &Core) -> Option<RowChoice<'_>> {
    let Kind::Build(count, j, elem) = &e.kind else {
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
    let row = if is_var(x, *j) {
        y
    } else if is_var(y, *j) {
        x
    } else {
        return None;
    };
    Some(RowChoice {
        count,
        index: *j,
        row,
        new,
        keep,
    })
}

impl Dps<'_> {
    /// An `ifold` whose step replaces one row of its array state (`build(m, |j| if j == r {
    /// new } else { acc[j] })`, maybe after `let`s: a chain of transforms, bone by bone)
    /// in place: see [`Dps::rows_in_place`]. `None` for any other step.
    pub(super) fn update_in_place(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
            return None;
        };
        let step = self.row_update(body, &|s| is_var(s, *acc))?;
        let steps = [PartStep::Row(step)];
        Some(self.rows_in_place(e, &[], &steps, &[Loc::View(dest.clone())]))
    }

    /// [`Dps::update_in_place`] for a tuple state, each array component's step replacing one
    /// of its rows: `(build(.., if j == r0 { .. } else { acc.0[j] }), build(..))` (a
    /// derivative's value and tangent, from `jvp`), the scalar components taking new values
    /// in locals (k-means' labels and cost: `(build(n, |r| if r == i { best } else {
    /// labels[r] }), cost + d)`).
    pub(super) fn update_parts_in_place(&mut self, e: &Core, dest: &Loc) -> Option<Vec<St>> {
        let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
            return None;
        };
        let parts = e.ty.parts();
        let Loc::Tuple(dests) = dest else {
            return None;
        };
        let placed = parts.iter().zip(dests).all(|(t, d)| match d {
            Loc::View(_) => t.is_arr(),
            Loc::Scalar(_) => !t.is_arr() && !t.is_tuple(),
            Loc::Nowhere => !t.is_tuple(),
            Loc::Tuple(_) => false,
        });
        if !placed || !parts.iter().any(Type::is_arr) {
            return None;
        }
        let (outer, tail) = lets_of(body);
        let Kind::Tuple(items) = &tail.kind else {
            return None;
        };
        // Component c of the state: `acc.c`, or a variable bound to it.
        let component = |s: &Core, c: usize| {
            let proj = |x: &Core| matches!(&x.kind, Kind::Proj(t, k) if *k == c && is_var(t, *acc));
            proj(s)
                || matches!(s.kind, Kind::Var(x) if outer.iter().any(|(v, a)| *v == x && proj(a)))
        };
        let steps = items
            .iter()
            .enumerate()
            .map(|(c, item)| match item.ty.is_arr() {
                true => self
                    .row_update(item, &|s| component(s, c))
                    .map(PartStep::Row),
                false => Some(PartStep::Value(item)),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(self.rows_in_place(e, &outer, &steps, dests))
    }

    /// The `ifold` `e` whose step (after `outer`) replaces row `r` of each state component by
    /// `new` (`steps`, one per component), in the components' places `dests` themselves (an
    /// output too: a state that is the result iterates in it; in the frame for a component
    /// nothing reads): the initial value written there, then per step each `new` into a row
    /// of the frame (they may read the state, rows `r` included), then each copied over its
    /// row `r` where `r < m`. O(row) per step instead of a whole new state.
    fn rows_in_place(
        &mut self,
        e: &Core,
        outer: &[(VarId, &Core)],
        steps: &[PartStep],
        dests: &[Loc],
    ) -> Vec<St> {
        let Kind::Ifold(n, init, acc, i, _) = &e.kind else {
            return Vec::new();
        };
        let depth = self.frame.depth();
        let types: Vec<&Type> = match &e.ty {
            Type::Tuple(ts) => ts.iter().collect(),
            t => vec![t],
        };
        let mut code = Vec::new();
        let mut states = Vec::new();
        for ((t, d), step) in types.iter().zip(dests).zip(steps) {
            let state = match (d, step) {
                (_, PartStep::Value(_)) => Loc::Scalar(self.scalar_place(t, "acc", &mut code)),
                (Loc::View(w), PartStep::Row(_)) => Loc::View(View {
                    dims: t.dims().to_vec(),
                    ..w.clone()
                }),
                (_, PartStep::Row(_)) => {
                    let elem = t.scalar().unwrap_or(Scalar::F64);
                    let holds = Holds::State(*acc);
                    let (alloc, state) = self.alloc(elem, t.dims(), holds, e.span);
                    code.push(alloc);
                    Loc::View(state)
                }
            };
            states.push(state);
        }
        let whole = match &e.ty {
            Type::Tuple(_) => Loc::Tuple(states.clone()),
            _ => states[0].clone(),
        };
        code.extend(self.write_parts(init, &whole));
        let nt = self.scalar(n);
        let iv = self.fold_index(n, *i);
        self.env.insert(*acc, whole);
        // Streams of what the steps read along `i` (a scatter's `pts[i]`); of a buffer the
        // steps write, loads again when the loop closes.
        self.enter_loop(*i, &iv);
        let inner = self.frame.depth();
        let mut body = Vec::new();
        for (v, a) in outer {
            body.extend(self.bind(*v, a));
        }
        // Every new value and row is computed before any is stored: a step reads the old
        // state. The scalars first, into locals taken at the end.
        let mut stores = Vec::new();
        for (step, state) in steps.iter().zip(&states) {
            if let (PartStep::Value(item), Loc::Scalar(id)) = (step, state) {
                let next = self.temp("next");
                let val = self.scalar(item);
                body.push(St::Let {
                    id: next.clone(),
                    mutable: false,
                    usize_ty: item.ty == Type::Usize,
                    val,
                });
                stores.push(St::Assign(id.clone(), Ex::Var(next)));
            }
        }
        let rows = steps
            .iter()
            .filter(|s| matches!(s, PartStep::Row(_)))
            .count();
        for (c, (step, state)) in steps.iter().zip(&states).enumerate() {
            let (PartStep::Row(step), Loc::View(state)) = (step, state) else {
                continue;
            };
            for (v, a) in &step.lets {
                body.extend(self.bind(*v, a));
            }
            let rv = format_ident!("__row_{}_{}", acc, c);
            let m = self.sizes.get(&state.dims[0]);
            let mut r = self.scalar(step.row);
            if !self.cannot_fail(step.row) {
                // The `build` computes its row's index at its first element only: with no
                // elements, an index that may fail is not computed (nor stored to).
                let some = Ex::Bin(BinOp::Lt, Box::new(Ex::Usize(0)), Box::new(m.clone()));
                r = Ex::If(Box::new(some), Box::new(r), Box::new(m.clone()));
            }
            body.push(St::let_usize(&rv, r));
            // Where the row is proven below the length (a scatter's checked index), no test.
            // Not by a check of an index array at entry: a row past the end chooses no row,
            // which is no error (`if q == x[i] { h[q] + 1 } else { h[q] }` counts only the
            // labels in range).
            let inside = match self.proven_below(step.row, &state.dims[0]) {
                true => None,
                false => Some(Ex::Bin(
                    BinOp::Lt,
                    Box::new(Ex::Var(rv.clone())),
                    Box::new(m),
                )),
            };
            let (tested, dim0) = (inside.is_some(), &state.dims[0]);
            if !step.new.ty.is_arr() && rows == 1 {
                // One element, the only row replaced: stored where it is computed (the
                // scalars' new values are computed already).
                let v = self.in_row(tested, step.row, dim0, |d| d.scalar(step.new));
                let at = plus(&state.off, Ex::Var(rv));
                let mut store = restated(state, &at, Ex::Usize(1));
                store.push(St::Store(state.base.clone(), at, v));
                body.push(only_if(inside, store));
                continue;
            }
            if step.elementwise && rows == 1 {
                // Each element over itself: the new row written where it lives.
                let target = self.row_of(state, Ex::Var(rv));
                let n = self.sizes.get(&Size::product(&target.dims));
                let off = target.off.clone().unwrap_or(Ex::Usize(0));
                let mut store = restated(state, &off, n);
                match &step.new.kind {
                    // Every item computed, then the row stored with one range check.
                    Kind::Array(items) if items.iter().all(|x| !x.ty.is_arr()) => {
                        let vs = self.in_row(tested, step.row, dim0, |d| {
                            items.iter().map(|x| d.scalar(x)).collect()
                        });
                        store.push(St::StoreRow(state.base.clone(), off.clone(), vs));
                    }
                    _ => store.extend(
                        self.in_row(tested, step.row, dim0, |d| d.write(step.new, &target)),
                    ),
                }
                body.push(only_if(inside, store));
                continue;
            }
            if rows == 1
                && let Some(one) = one_element(step.new, step.row, &|x| {
                    is_var(x, *acc)
                        || matches!(&x.kind, Kind::Proj(t, k) if *k == c && is_var(t, *acc))
                })
            {
                // A row that replaces one of its own elements (`build(bx, |c| if c == k {
                // h[r][k] + 1 } else { h[r][c] })`, a 2-D histogram's count): that element
                // alone, computed (it may read the state anywhere) and stored in place, O(1)
                // a step where the row took a row of the frame and a copy. A column past the
                // row's end chooses no element.
                let target = self.row_of(state, Ex::Var(rv.clone()));
                let width = self.sizes.get(&target.dims[0]);
                // The value under the column's test: computed only for a column in the row,
                // as the `build` computes it only at `c == k`.
                let dim1 = target.dims[0].clone();
                let (kv, v) = self.in_row(tested, step.row, dim0, |d| {
                    let kv = d.scalar(one.column);
                    let v = d.knowing_below(one.column, &dim1, |d| d.scalar(one.value));
                    (kv, v)
                });
                let col = format_ident!("__col_{}_{}", acc, c);
                let at = plus(&target.off, Ex::Var(col.clone()));
                let mut store = vec![St::let_usize(&col, kv)];
                store.extend(restated(state, &at, Ex::Usize(1)));
                let put = St::Store(state.base.clone(), at, v);
                store.push(match self.proven_below(one.column, &target.dims[0]) {
                    true => put,
                    false => St::If(
                        Ex::Bin(BinOp::Lt, Box::new(Ex::Var(col)), Box::new(width)),
                        vec![put],
                        Vec::new(),
                    ),
                });
                body.push(only_if(inside, store));
                continue;
            }
            if rows == 1
                && let Some(plan) = written_out(step.new, *acc, c, step.row)
            {
                // A written-out row (a bone's 4 x 4 product), or the row itself, chosen by
                // tests: every value computed, then the row stored over itself with one
                // range check, with no row of the frame between (the values may read the
                // old row: they are all computed first).
                let target = self.row_of(state, Ex::Var(rv));
                let n = self.sizes.get(&Size::product(&target.dims));
                let off = target.off.clone().unwrap_or(Ex::Usize(0));
                let mut store = restated(state, &off, n);
                let base = state.base.clone();
                store.extend(
                    self.in_row(tested, step.row, dim0, |d| d.write_out(&plan, &base, &off)),
                );
                body.push(only_if(inside, store));
                continue;
            }
            let elem = step.new.ty.scalar().unwrap_or(Scalar::F64);
            let dims = match step.new.ty.is_arr() {
                true => step.new.ty.dims().to_vec(),
                false => vec![Size::Lit(1)],
            };
            let (alloc, tmp) = self.alloc(elem, &dims, Holds::Value("updated row"), step.new.span);
            body.push(alloc);
            let fill = if step.new.ty.is_arr() {
                self.in_row(tested, step.row, dim0, |d| d.write(step.new, &tmp))
            } else {
                let v = self.in_row(tested, step.row, dim0, |d| d.scalar(step.new));
                let at = tmp.off.clone().unwrap_or(Ex::Usize(0));
                vec![St::Store(tmp.base.clone(), at, v)]
            };
            let target = if step.new.ty.is_arr() {
                self.row_of(state, Ex::Var(rv))
            } else {
                View {
                    base: state.base.clone(),
                    off: Some(plus(&state.off, Ex::Var(rv))),
                    dims: dims.clone(),
                }
            };
            body.push(only_if(inside.clone(), fill));
            let n = self.sizes.get(&Size::product(&target.dims));
            let mut store = restated(state, target.off.as_ref().unwrap_or(&Ex::Usize(0)), n);
            store.push(self.copy(&tmp, &target));
            stores.push(only_if(inside, store));
        }
        body.extend(stores);
        self.frame.truncate(inner);
        let streams = self.leave_loop_sts(&mut body, None);
        code.push(St::For {
            var: iv,
            n: nt,
            streams,
            body,
        });
        for (state, d) in states.iter().zip(dests) {
            match (state, d) {
                (Loc::View(state), Loc::View(w)) if w.base != state.base => {
                    code.push(self.copy(state, w));
                }
                (Loc::Scalar(id), Loc::Scalar(to)) => {
                    code.push(St::Assign(to.clone(), Ex::Var(id.clone())));
                }
                _ => {}
            }
        }
        self.frame.truncate(depth);
        vec![St::Block(code)]
    }

    /// `f` where row `r` of a row update is known below the state's length `dim` when
    /// `tested` (the new row is computed and stored under `if r < m`).
    fn in_row<T>(
        &mut self,
        tested: bool,
        r: &Core,
        dim: &Size,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        match tested {
            true => self.knowing_below(r, dim, f),
            false => f(self),
        }
    }

    /// `body` as a [`RowUpdate`] of the state `is_state` recognises: a [`row_choice`] with
    /// `r` and `new` free of `j`, the other branch the state's own element `acc[j]`.
    fn row_update<'a>(
        &self,
        body: &'a Core,
        is_state: &dyn Fn(&Core) -> bool,
    ) -> Option<RowUpdate<'a>> {
        let (lets, cur) = lets_of(body);
        let choice = row_choice(cur)?;
        let (j, row, new) = (choice.index, choice.row, choice.new);
        let kept = matches!(&choice.keep.kind, Kind::Index(s, k) if is_state(s) && is_var(k, j));
        if !kept || row.mentions(j) || new.mentions(j) {
            return None;
        }
        let elementwise = elementwise(&lets, row, new, is_state);
        Some(RowUpdate {
            lets,
            row,
            new,
            elementwise,
        })
    }
}

/// A new row that replaces one of its own elements ([`one_element`]).
struct OneElement<'a> {
    column: &'a Core,
    value: &'a Core,
}

/// `new`, the row replacing row `row` of a fold's state, when it is `build(w, |c| if c == k
/// { value } else { old[c] })` with `old` that row of the state (`acc[row]`, or `acc[j]`
/// written with the outer `build`'s index: the same row), and `k` not reading `c`.
fn one_element<'a>(
    new: &'a Core,
    row: &Core,
    is_state: &dyn Fn(&Core) -> bool,
) -> Option<OneElement<'a>> {
    let choice = row_choice(new)?;
    let Kind::Index(old, at) = &choice.keep.kind else {
        return None;
    };
    let Kind::Index(st, r) = &old.kind else {
        return None;
    };
    // The row as the choice names it (`iy`, or `i % 2` written again in the branch).
    let same_row = crate::middle::cse::key(r) == crate::middle::cse::key(row);
    (is_state(st)
        && same_row
        && is_var(at, choice.index)
        && !choice.row.mentions(choice.index)
        && !choice.new.mentions(choice.index)
        && !choice.new.ty.is_arr())
    .then_some(OneElement {
        column: choice.row,
        value: choice.new,
    })
}

/// `code` under `if c`, or as it is without a test.
fn only_if(c: Option<Ex>, code: Vec<St>) -> St {
    match c {
        Some(c) => St::If(c, code, Vec::new()),
        None => St::Block(code),
    }
}

/// True when `new` (a row replacing row `row` of a fold's state, after `lets`) is a `build`
/// whose element `e` reads, of the state, only element `e` of that row (or an array literal
/// whose item `c` reads only element `c`: a `build` of literal width unrolled): through a
/// `let` bound to the row (`old = acc[r]`, read `old[e]`) or directly (`acc[r][e]`).
/// Anything else that reads the state as an array (another row, the whole state, a `let`
/// of it) says no.
fn elementwise(
    lets: &[(VarId, &Core)],
    row: &Core,
    new: &Core,
    is_state: &dyn Fn(&Core) -> bool,
) -> bool {
    let Kind::Var(r) = row.kind else {
        return false;
    };
    let is_row = |x: &Core| matches!(&x.kind, Kind::Index(s, k) if is_state(s) && matches!(k.kind, Kind::Var(v) if v == r));
    // Lets naming the row, and lets of other arrays read from the state (which no element
    // may read).
    let rows: Vec<VarId> = lets
        .iter()
        .filter(|(_, a)| is_row(a))
        .map(|(v, _)| *v)
        .collect();
    let tainted: Vec<VarId> = lets
        .iter()
        .filter(|(v, a)| !rows.contains(v) && a.ty.is_arr() && mentions_state(a, is_state))
        .map(|(v, _)| *v)
        .collect();
    let reads = Reads {
        rows: &rows,
        tainted: &tainted,
        is_row: &is_row,
        is_state,
    };
    match &new.kind {
        Kind::Build(_, e, body) => {
            reads.only_own(body, &|k| matches!(k.kind, Kind::Var(v) if v == *e))
        }
        Kind::Array(items) => items.iter().enumerate().all(|(c, item)| {
            reads.only_own(item, &|k| {
                k.sym.as_ref().and_then(Size::as_const) == Some(c as u64)
            })
        }),
        _ => false,
    }
}

/// What [`elementwise`] knows of a step's reads of the state.
struct Reads<'a> {
    rows: &'a [VarId],
    tainted: &'a [VarId],
    is_row: &'a dyn Fn(&Core) -> bool,
    is_state: &'a dyn Fn(&Core) -> bool,
}

impl Reads<'_> {
    /// True when `x` reads the state only at the replaced row's element whose index `own`
    /// accepts.
    fn only_own(&self, x: &Core, own: &dyn Fn(&Core) -> bool) -> bool {
        if let Kind::Index(a, k) = &x.kind
            && own(k)
            && (matches!(a.kind, Kind::Var(v) if self.rows.contains(&v)) || (self.is_row)(a))
        {
            return true;
        }
        let named = |v: VarId| self.rows.contains(&v) || self.tainted.contains(&v);
        if (self.is_state)(x) || matches!(x.kind, Kind::Var(v) if named(v)) {
            return false;
        }
        x.children().all(|c| self.only_own(c, own))
    }
}

/// True when `x` reads the state anywhere.
fn mentions_state(x: &Core, is_state: &dyn Fn(&Core) -> bool) -> bool {
    is_state(x) || x.children().any(|c| mentions_state(c, is_state))
}

/// The most values a written-out row stored at once holds ([`written_out`]).
const LITERAL_MAX: usize = 64;

/// A fold step's new row, as [`written_out`] finds it.
enum RowNew<'a> {
    /// The row itself, unchanged.
    Same,
    /// An array literal's scalars, in row-major order.
    Literal(Vec<&'a Core>),
    /// `let v = a; next`.
    Let(VarId, &'a Core, Box<RowNew<'a>>),
    /// `if c { a } else { b }`.
    If(&'a Core, Box<RowNew<'a>>, Box<RowNew<'a>>),
}

/// The new row `e` of component `part` of the fold's state `acc` (replacing row `row`) as a
/// choice, by `if`s and after `let`s, between array literals of scalars computed by
/// straight-line code (`[[a, b], [c, d]]`: `a, b, c, d`) and the old row itself; `None` for
/// any other form.
fn written_out<'a>(e: &'a Core, acc: VarId, part: usize, row: &Core) -> Option<RowNew<'a>> {
    match &e.kind {
        Kind::If(c, a, b) => Some(RowNew::If(
            c,
            Box::new(written_out(a, acc, part, row)?),
            Box::new(written_out(b, acc, part, row)?),
        )),
        Kind::Let(v, a, b) => Some(RowNew::Let(
            *v,
            a,
            Box::new(written_out(b, acc, part, row)?),
        )),
        Kind::Array(_) => {
            let items = literal_scalars(e)?;
            let straight = items.iter().all(|x| super::dps::straight(x));
            (items.len() <= LITERAL_MAX && straight).then_some(RowNew::Literal(items))
        }
        Kind::Index(s, i) => {
            let state = match &s.kind {
                Kind::Var(v) => *v == acc,
                Kind::Proj(t, k) => *k == part && matches!(t.kind, Kind::Var(v) if v == acc),
                _ => false,
            };
            let same = matches!((&i.kind, &row.kind), (Kind::Var(a), Kind::Var(b)) if a == b);
            (state && same).then_some(RowNew::Same)
        }
        _ => None,
    }
}

/// The scalars of an array literal of scalars or of such literals, in row-major order.
fn literal_scalars(e: &Core) -> Option<Vec<&Core>> {
    let Kind::Array(items) = &e.kind else {
        return None;
    };
    let mut out = Vec::new();
    for x in items {
        match x.ty.is_arr() {
            true => out.extend(literal_scalars(x)?),
            false => out.push(x),
        }
    }
    Some(out)
}

impl Dps<'_> {
    /// The statements storing `plan`'s row at `base[off..]` (see [`written_out`]).
    fn write_out(&mut self, plan: &RowNew, base: &Base, off: &Ex) -> Vec<St> {
        match plan {
            RowNew::Same => Vec::new(),
            RowNew::Literal(items) => {
                let vs = self.row_values(items.iter().copied());
                vec![St::StoreRow(base.clone(), off.clone(), vs)]
            }
            RowNew::Let(v, a, next) => {
                let mut code = self.bind(*v, a);
                code.extend(self.write_out(next, base, off));
                code
            }
            RowNew::If(c, a, b) => {
                let c = self.scalar(c);
                let a = self.write_out(a, base, off);
                let b = self.write_out(b, base, off);
                vec![St::If(c, a, b)]
            }
        }
    }
}
