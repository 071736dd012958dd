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
//! the fold's.

use super::dps::{Dps, Loc, View, fill};
use super::folds::row_choice;
use super::streams::run_code;
use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{self, Base, Ex, St, Stream, Wrap, plus};
use crate::middle::cse;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};
use proc_macro2::Ident;

/// A step that adds to its state, taken apart.
enum Increment<'a> {
    /// The state unchanged (`acc` itself).
    Same,
    /// One row changed, by adding to it: `build(k, |p| if p == at { row } else { acc[p] })`
    /// (after `let`s), `row` an increment of `acc[at]` (reverse mode's sums into a row of a
    /// matrix's adjoint).
    Row {
        lets: Vec<Bind<'a>>,
        /// The build's index, which the row's terms may read: `at` there.
        index: VarId,
        at: &'a Core,
        row: Box<Increment<'a>>,
    },
    /// Terms added at each element (`build(n, |p| acc[p] + t)`).
    Add {
        /// Bindings before the additions (they may read the state: they run before any of
        /// the step's writes).
        lets: Vec<Bind<'a>>,
        /// The loop index of each of the state's dimensions.
        index: Vec<VarId>,
        /// The term, when it is one element (of a vector state): `(e, v, op)`, `op` adding
        /// or subtracting `v` (`if p == e { acc[e] - v } else { acc[p] }`: `x - v` is
        /// `x + -v` to the bit).
        element: Option<(&'a Core, &'a Core, BinOp)>,
        /// The term otherwise, with the `let`s inside the innermost loop before it.
        dense: Option<(Vec<(VarId, &'a Core)>, &'a Core)>,
    },
    /// A fold starting from an increment of the state, each of whose steps adds to it.
    Fold(Nested<'a, Increment<'a>>),
    /// A vector of literal length written out, `[acc[0] + t0, acc[1] - t1, ..]` (an
    /// unrolled row's increment): `(k, t_k, op, guard)` for each item that changes, under
    /// the test `guard` when there is one (`if k == j { acc[j] + t } else { acc[k] }`).
    Items {
        lets: Vec<Bind<'a>>,
        terms: Vec<(usize, &'a Core, BinOp, Option<&'a Core>)>,
    },
}

/// A binding at the head of a step.
enum Bind<'a> {
    /// `let var = value`.
    Let(VarId, &'a Core),
    /// `let var = inc`, `inc` an increment of component `part` of the state (of the whole
    /// state when `None`), of type `ty`: applied in place, `var` then naming that component
    /// (one link of a chain of updates, `let s1 = build(m, |p| if p == a { s[p] + x } else {
    /// s[p] }); build(m, |p| if p == b { s1[p] + y } else { s1[p] })`: a mesh edge's two
    /// ends in reverse mode). The names of the component before it are read no more.
    Link {
        var: VarId,
        value: &'a Core,
        part: Option<usize>,
        ty: Type,
        inc: Increment<'a>,
    },
}

/// An inner fold whose state is the outer fold's (`ifold(m, start, |acc, index| step)`, `start`
/// and `step` increments of that state), after `let`s.
struct Nested<'a, Step> {
    lets: Vec<Bind<'a>>,
    count: &'a Core,
    start: Box<Step>,
    acc: VarId,
    index: VarId,
    step: Box<Step>,
}

/// The state an increment adds to: a fold's variable, or component `k` of it, and the
/// variables the step binds to the state or its components (views of it); or a row of that
/// state, at the indexes `row_index`.
#[derive(Clone)]
struct Root {
    var: VarId,
    part: Option<usize>,
    aliases: Vec<(VarId, Option<usize>)>,
    /// The row's indexes: each its build's variable `p`, read as `acc[p]`, and the value
    /// `p` is known equal to in the branch that changes the row, by its [`cse::key`]:
    /// the canonical form reads `acc[at]` there ([`crate::middle::equal`]).
    row_index: Vec<(VarId, Option<String>)>,
    /// Components (`None`: the whole state) a [`Bind::Link`] has updated: the fold's
    /// variable no longer names them.
    updated: Vec<Option<usize>>,
    /// Names of components before a link updated them, read no more.
    stale: Vec<VarId>,
    /// Variables bound to this row of the state inside the branch that changes it (`let r
    /// = acc[at]`): the row itself.
    row_aliases: Vec<VarId>,
    /// Such variables of the rows around this one: reads of the state.
    outer_rows: Vec<VarId>,
}

impl Root {
    /// The state `var` itself (component `part` of it).
    fn new(var: VarId, part: Option<usize>) -> Root {
        Root {
            var,
            part,
            aliases: Vec::new(),
            row_index: Vec::new(),
            updated: Vec::new(),
            stale: Vec::new(),
            row_aliases: Vec::new(),
            outer_rows: Vec::new(),
        }
    }

    /// Row `p` of this state, outside the branch that changes it.
    fn row(&self, p: VarId) -> Root {
        let mut row = self.clone();
        row.row_index.push((p, None));
        row.outer_rows.append(&mut row.row_aliases);
        row
    }

    /// Row `p` of this state inside the branch where `p == at`: `acc[p]` or `acc[at]`.
    fn row_at(&self, p: VarId, at: &Core) -> Root {
        let mut row = self.clone();
        row.row_index.push((p, Some(cse::key(at))));
        row.outer_rows.append(&mut row.row_aliases);
        row
    }

    /// Whether `e` is the state (its row `acc[p]` for a row).
    fn is(&self, e: &Core) -> bool {
        if let Kind::Var(v) = e.kind
            && self.row_aliases.contains(&v)
        {
            return true;
        }
        let mut cur = e;
        for (p, at) in self.row_index.iter().rev() {
            match &cur.kind {
                Kind::Index(a, i)
                    if matches!(i.kind, Kind::Var(v) if v == *p)
                        || at.as_ref().is_some_and(|k| *k == cse::key(i)) =>
                {
                    cur = a
                }
                _ => return false,
            }
        }
        self.is_whole(cur)
    }

    /// Whether `e` is the whole state.
    fn is_whole(&self, e: &Core) -> bool {
        match (&e.kind, self.part) {
            (Kind::Var(v), part) if self.aliases.contains(&(*v, part)) => true,
            (Kind::Var(v), None) => *v == self.var && self.updated.is_empty(),
            (Kind::Proj(t, k), Some(part)) => {
                *k == part
                    && matches!(t.kind, Kind::Var(v) if v == self.var)
                    && !self.updated.contains(&Some(part))
            }
            _ => false,
        }
    }

    /// Whether `e` reads a name of a component from before a link updated it.
    fn reads_stale(&self, e: &Core) -> bool {
        match &e.kind {
            Kind::Proj(t, k) if matches!(t.kind, Kind::Var(v) if v == self.var) => {
                self.updated.contains(&Some(*k)) || self.updated.contains(&None)
            }
            Kind::Var(v) if *v == self.var => !self.updated.is_empty(),
            Kind::Var(v) => self.stale.contains(v),
            _ => e.children().any(|c| self.reads_stale(c)),
        }
    }

    /// After a link of component `part` bound to `v`: `v` names it, its names before do
    /// not (a name of the whole state neither).
    fn link(&mut self, part: Option<usize>, v: VarId) {
        let (old, keep) = std::mem::take(&mut self.aliases)
            .into_iter()
            .partition(|(_, p)| *p == part || p.is_none());
        let old: Vec<(VarId, Option<usize>)> = old;
        self.aliases = keep;
        self.stale.extend(old.into_iter().map(|(x, _)| x));
        self.updated.push(part);
        self.aliases.push((v, part));
    }

    /// Whether `e` reads the state (any component of it).
    fn read_by(&self, e: &Core) -> bool {
        e.mentions(self.var)
            || self.aliases.iter().any(|(a, _)| e.mentions(*a))
            || self
                .row_aliases
                .iter()
                .chain(&self.outer_rows)
                .any(|a| e.mentions(*a))
    }

    /// The `let`s at the head of `e`, and what follows them (which reads no name a link
    /// made stale). A `let` binding the state or a component of it is an alias; one that
    /// is an increment of one of the components `comps` (its part and type), a link of a
    /// chain of updates; any other array bound here must not read the state (it may be a
    /// view of it, read after the step's writes).
    fn head_lets<'a>(
        &mut self,
        e: &'a Core,
        comps: &[(Option<usize>, &Type)],
    ) -> Option<(Vec<Bind<'a>>, &'a Core)> {
        let mut lets = Vec::new();
        let mut cur = e;
        while let Kind::Let(v, a, b) = &cur.kind {
            if self.reads_stale(a) {
                return None;
            }
            let alias = match &a.kind {
                Kind::Var(x) if *x == self.var => Some(None),
                Kind::Var(x) => self.aliases.iter().find(|(y, _)| y == x).map(|(_, k)| *k),
                Kind::Proj(t, k) if matches!(t.kind, Kind::Var(x) if x == self.var) => {
                    Some(Some(*k))
                }
                _ => None,
            };
            if !self.row_index.is_empty() && a.ty.is_arr() && self.is(a) {
                // The row itself, read where the row is (never bound: every read of it
                // is recognised as the state's).
                self.row_aliases.push(*v);
                cur = b;
                continue;
            }
            match alias {
                Some(part) => self.aliases.push((*v, part)),
                None if a.ty.is_arr() && self.read_by(a) && self.row_index.is_empty() => {
                    let (part, ty, inc) =
                        comps
                            .iter()
                            .filter(|(_, t)| t.same(&a.ty))
                            .find_map(|(part, t)| {
                                let root = Root {
                                    part: *part,
                                    ..self.clone()
                                };
                                increment(a, root, t).map(|inc| (*part, (*t).clone(), inc))
                            })?;
                    self.link(part, *v);
                    lets.push(Bind::Link {
                        var: *v,
                        value: a,
                        part,
                        ty,
                        inc,
                    });
                    cur = b;
                    continue;
                }
                None if a.ty.is_arr() && self.read_by(a) => return None,
                None => {}
            }
            lets.push(Bind::Let(*v, a));
            cur = b;
        }
        (!self.reads_stale(cur)).then_some((lets, cur))
    }
}

/// Whether `e` is `acc[p1]..[pk]` for the indexes `index`.
fn is_state_element(e: &Core, acc: &Root, index: &[VarId]) -> bool {
    indexed_by(e, index).is_some_and(|array| acc.is(array))
}

/// The array `a` when `e` is `a[p1]..[pk]` for the index variables `index`.
pub(super) fn indexed_by<'a>(e: &'a Core, index: &[VarId]) -> Option<&'a Core> {
    let mut cur = e;
    for p in index.iter().rev() {
        match &cur.kind {
            Kind::Index(a, i) if matches!(i.kind, Kind::Var(v) if v == *p) => cur = a,
            _ => return None,
        }
    }
    Some(cur)
}

/// Of `x == y`, the side that is not the variable `p`, when the other is.
fn other_side<'a>(x: &'a Core, y: &'a Core, p: VarId) -> Option<&'a Core> {
    let is_p = |e: &Core| matches!(e.kind, Kind::Var(v) if v == p);
    match (is_p(x), is_p(y)) {
        (true, false) => Some(y),
        (false, true) => Some(x),
        _ => None,
    }
}

/// A [`row_choice`] over the first of `dims` (two or more) that keeps the state's row
/// `acc[p]` elsewhere: `(p, at, row)`, `at` not reading `p` or the state.
fn row_update<'a>(e: &'a Core, acc: &Root, dims: &[Size]) -> Option<(VarId, &'a Core, &'a Core)> {
    let choice = row_choice(e)?;
    let (p, at) = (choice.index, choice.row);
    (dims.len() > 1
        && choice.count.same(&dims[0])
        && !at.mentions(p)
        && !acc.read_by(at)
        && acc.row(p).is(choice.keep))
    .then_some((p, at, choice.new))
}

/// `if p == e { v } else { 0.0 }` (or `e == p`), `e` and `v` not reading `p`: `(e, v)` (`v`
/// may read the inner indexes: a row's element).
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
    other_side(x, y, p)
        .filter(|e| !e.mentions(p))
        .map(|e| (e, &**v))
}

/// The step `body` of an `ifold` with array state `acc` of type `ty`, when it only adds to
/// the state.
fn increment<'a>(body: &'a Core, mut acc: Root, ty: &Type) -> Option<Increment<'a>> {
    let dims = ty.dims();
    if dims.is_empty() || !ty.scalar().is_some_and(Scalar::is_float) {
        return None;
    }
    if acc.is(body) {
        return Some(Increment::Same);
    }
    let part = acc.part;
    let (lets, mut cur) = acc.head_lets(body, &[(part, ty)])?;
    if let Some((p, at, row)) = row_update(cur, &acc, dims) {
        let row_ty = Type::Arr(ty.scalar()?, dims[1..].to_vec());
        let row = increment(row, acc.row_at(p, at), &row_ty)?;
        return Some(Increment::Row {
            lets,
            index: p,
            at,
            row: Box::new(row),
        });
    }
    if let Kind::Ifold(count, init, inner, i, step) = &cur.kind {
        // The inner fold writes the state as it goes: it must not read it otherwise.
        if !init.ty.same(ty) || acc.read_by(count) || acc.read_by(step) {
            return None;
        }
        let own = Root::new(*inner, None);
        return Some(Increment::Fold(Nested {
            lets,
            count,
            start: Box::new(increment(init, acc, ty)?),
            acc: *inner,
            index: *i,
            step: Box::new(increment(step, own, ty)?),
        }));
    }
    if let Kind::Array(items) = &cur.kind
        && dims.len() == 1
        && dims[0].as_const() == Some(items.len() as u64)
    {
        let mut terms = Vec::new();
        for (k, item) in items.iter().enumerate() {
            let literal =
                |i: &Core| matches!(&i.kind, Kind::Size(n) if n.as_const() == Some(k as u64));
            let own = |e: &Core| matches!(&e.kind, Kind::Index(a, i) if literal(i) && acc.is(a));
            if own(item) {
                continue;
            }
            // `if k == j { acc[j] + t } else { acc[k] }` (a placed element unrolled): `t`
            // added under the test, `acc[j]` being element `k` there.
            let (guard, changed) = match &item.kind {
                Kind::If(c, then, other)
                    if own(other)
                        && let Kind::Bin(BinOp::Eq, x, y, _) = &c.kind
                        && (literal(x) || literal(y)) =>
                {
                    let j = if literal(x) { y } else { x };
                    (Some((&**c, cse::key(j))), &**then)
                }
                _ => (None, item),
            };
            let own_here = |e: &Core| {
                own(e)
                    || matches!((&e.kind, &guard), (Kind::Index(a, i), Some((_, j)))
                        if cse::key(i) == *j && acc.is(a))
            };
            let Kind::Bin(op @ (BinOp::Add | BinOp::Sub), a, b, _) = &changed.kind else {
                return None;
            };
            let term = match (own_here(a), own_here(b), op) {
                (true, false, _) => &**b,
                (false, true, BinOp::Add) => &**a,
                _ => return None,
            };
            if acc.read_by(term) || guard.as_ref().is_some_and(|(c, _)| acc.read_by(c)) {
                return None;
            }
            terms.push((k, term, *op, guard.map(|(c, _)| c)));
        }
        return Some(Increment::Items { lets, terms });
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
        if acc.read_by(a) {
            return None;
        }
        inner_lets.push((*v, &**a));
        cur = b;
    }
    // `if p == e { acc[e] + v } else { acc[p] }` (or `e == p`; the branch reads `acc[p]`
    // before the canonical form): `v` added to element `e` alone.
    if let Kind::If(c, then, other) = &cur.kind
        && index.len() == 1
        && inner_lets.is_empty()
        && is_state_element(other, &acc, &index)
        && let Kind::Bin(BinOp::Eq, x, y, _) = &c.kind
        && let Some(e) = other_side(x, y, index[0])
        && !e.mentions(index[0])
        && !acc.read_by(e)
        && let Kind::Bin(op @ (BinOp::Add | BinOp::Sub), x, v, _) = &then.kind
        && let Kind::Index(whole, i) = &x.kind
        && (matches!(i.kind, Kind::Var(q) if q == index[0]) || cse::key(i) == cse::key(e))
        && acc.is(whole)
        && !acc.read_by(v)
        && !v.mentions(index[0])
    {
        return Some(Increment::Add {
            lets,
            index,
            element: Some((e, v, *op)),
            dense: None,
        });
    }
    // `acc[p] + t` or `t + acc[p]`: adding `t` in place gives the same sums.
    let Kind::Bin(BinOp::Add, a, b, _) = &cur.kind else {
        return None;
    };
    let term = match (
        is_state_element(a, &acc, &index),
        is_state_element(b, &acc, &index),
    ) {
        (true, false) => &**b,
        (false, true) => &**a,
        _ => return None,
    };
    if acc.read_by(term) {
        return None;
    }
    let element = one_element(term, index[0])
        .filter(|(at, _)| inner_lets.is_empty() && index.iter().all(|p| !at.mentions(*p)))
        .map(|(at, v)| (at, v, BinOp::Add));
    let dense = element.is_none().then_some((inner_lets, term));
    Some(Increment::Add {
        lets,
        index,
        element,
        dense,
    })
}

/// A component of a tuple step: an array's increment, or a scalar's next value.
enum Part<'a> {
    Array(Increment<'a>),
    Scalar(&'a Core),
}

/// A step of a fold with a tuple state that only adds to its array components.
enum PartsIncrement<'a> {
    /// `(c0, c1, ..)`, after `let`s.
    Parts {
        lets: Vec<Bind<'a>>,
        parts: Vec<Part<'a>>,
    },
    /// A fold starting from such a step of the state, each of whose steps is one of its own.
    Fold(Nested<'a, PartsIncrement<'a>>),
}

/// The step `body` of a fold with tuple state `acc` (components `tys`, kept in `places`),
/// when its array components only add to themselves: every scalar component and `let` is
/// computed before any array is written, and no array term reads the state. (An `ifold`'s
/// components all have places: only a `scan`'s may be nowhere.)
fn parts_increment<'a>(
    body: &'a Core,
    mut acc: Root,
    tys: &[Type],
    places: &[Loc],
) -> Option<PartsIncrement<'a>> {
    let comps: Vec<(Option<usize>, &Type)> =
        tys.iter().enumerate().map(|(k, t)| (Some(k), t)).collect();
    let (lets, cur) = acc.head_lets(body, &comps)?;
    if let Kind::Ifold(count, init, inner, i, step) = &cur.kind {
        if !init.ty.same(&Type::Tuple(tys.to_vec())) || acc.read_by(count) || acc.read_by(step) {
            return None;
        }
        return Some(PartsIncrement::Fold(Nested {
            lets,
            count,
            start: Box::new(parts_increment(init, acc, tys, places)?),
            acc: *inner,
            index: *i,
            step: Box::new(parts_increment(step, Root::new(*inner, None), tys, places)?),
        }));
    }
    let Kind::Tuple(xs) = &cur.kind else {
        return None;
    };
    let mut parts = Vec::new();
    for (k, ((ty, place), x)) in tys.iter().zip(places).zip(xs).enumerate() {
        let root = Root {
            part: Some(k),
            ..acc.clone()
        };
        parts.push(match (ty, place) {
            (Type::Arr(..), Loc::View(_)) => Part::Array(increment(x, root, ty)?),
            (t, Loc::Scalar(_)) if t.is_float() => Part::Scalar(x),
            _ => return None,
        });
    }
    Some(PartsIncrement::Parts { lets, parts })
}

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
                Bind::Link {
                    var,
                    value,
                    part,
                    ty,
                    inc,
                } => {
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
                        // Not reached (a component with an increment has a place): the
                        // link computed apart, as any `let`.
                        None => code.extend(self.bind(*var, value)),
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
