//! What a step adds to a fold's array state, taken apart for the accumulation in place
//! ([`crate::lower::accumulate`]): the state an increment adds to ([`Root`]: the fold's
//! variable, a component, a row, and the names a chain of updates gives them), the forms of
//! an increment ([`Increment`]: terms at each element, one element, one row, an unrolled
//! row's items, a fold from the state) and the bindings before it ([`Bind`]: a `let`, or a
//! link of a chain of updates applied in place).

use super::dps::Loc;
use super::row_updates::row_choice;
use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::middle::cse;
use crate::middle::ir::{Core, Kind, Scalar, Type, VarId};

/// A step that adds to its state, taken apart.
pub(super) enum Increment<'a> {
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
pub(super) enum Bind<'a> {
    /// `let var = value`.
    Let(VarId, &'a Core),
    /// `let var = inc`, `inc` an increment of component `part` of the state (of the whole
    /// state when `None`), of type `ty`: applied in place, `var` then naming that component
    /// (one link of a chain of updates, `let s1 = build(m, |p| if p == a { s[p] + x } else {
    /// s[p] }); build(m, |p| if p == b { s1[p] + y } else { s1[p] })`: a mesh edge's two
    /// ends in reverse mode). The names of the component before it are read no more.
    Link {
        var: VarId,
        part: Option<usize>,
        ty: Type,
        inc: Increment<'a>,
    },
}

/// An inner fold whose state is the outer fold's (`ifold(m, start, |acc, index| step)`, `start`
/// and `step` increments of that state), after `let`s.
pub(super) struct Nested<'a, Step> {
    pub(super) lets: Vec<Bind<'a>>,
    pub(super) count: &'a Core,
    pub(super) start: Box<Step>,
    pub(super) acc: VarId,
    pub(super) index: VarId,
    pub(super) step: Box<Step>,
}

/// The state an increment adds to: a fold's variable, or component `k` of it, and the
/// variables the step binds to the state or its components (views of it); or a row of that
/// state, at the indexes `row_index`.
#[derive(Clone)]
pub(super) struct Root {
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
    pub(super) fn new(var: VarId, part: Option<usize>) -> Root {
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
pub(super) fn increment<'a>(body: &'a Core, mut acc: Root, ty: &Type) -> Option<Increment<'a>> {
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
pub(super) enum Part<'a> {
    Array(Increment<'a>),
    Scalar(&'a Core),
}

/// A step of a fold with a tuple state that only adds to its array components.
pub(super) enum PartsIncrement<'a> {
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
pub(super) fn parts_increment<'a>(
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
