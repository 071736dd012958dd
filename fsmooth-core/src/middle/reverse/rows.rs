//! Sums into rows: a sum over steps from zero (a fold bound in a step's `let`s) whose
//! components are each added into one row of an adjoint the outer sum carries (the adjoint
//! of `icf[c]` and of `means[c]` in GMM's gradient: `icf` and `means` read at row `c`).
//! Instead of summing into a zeroed array and then adding it to the row, the fold adds
//! each contribution to the row itself: the outer sum's fold continues into it, its state
//! widened to the outer state, each of its increments made an increment of that row.
//! Contributions the row received through `-x` (`x - means[c]`) are subtracted instead.
//! Components fed whole may sit beside the rows (a dense layer's `dot(w[c], a)` per output
//! `c`: the adjoint of `a` whole, of `w`'s row `c`), each increment then one of the outer
//! component itself; a sum whose components are all fed whole, of any form, is
//! [`Reverse::pass_into`](super::Reverse)'s.
//!
//! A component that gets one contribution per element has the same sums as before, up to
//! the sign of a zero (`row + (0 + v)` is `row + v` unless both are `-0.0`); one that gets several adds them to the row one by one, instead
//! of summing them first: the order of additions changes, so the last bits may. This is
//! derivative code, whose order of additions is the compiler's, not the user's.

use super::loops::{components, retype_tail, whole_state};
use super::{Lets, Reverse, at, index, part, pick, placed, var};
use crate::front::ast::{BinOp, Sp};
use crate::middle::forward::{bin, neg};
use crate::middle::ir::{Core, Kind, Type, VarId, fresh};
use std::collections::HashMap;

/// How a variable bound after the fold relates to it.
#[derive(Clone)]
enum Link {
    /// Component `part` of the fold's value, negated when `negated`.
    Part { part: usize, negated: bool },
    /// That array placed at row `at` of an otherwise zero matrix (a row's one-hot adjoint).
    Row {
        part: usize,
        negated: bool,
        at: Core,
    },
}

/// Where a component of the fold goes: row `at` of component `to` of the outer state (the
/// whole component when `at` is `None`), subtracted when `negated`.
struct Feed {
    to: usize,
    negated: bool,
    at: Option<Core>,
}

/// `build(n, |i| -y[i])` after `let`s the result does not read (a map's reverse binds the
/// primal's elements): `y`.
fn negation_of(value: &Core) -> Option<VarId> {
    let Kind::Build(_, i, body) = &value.kind else {
        return None;
    };
    let mut lets = HashMap::new();
    let mut cur = &**body;
    while let Kind::Let(v, a, b) = &cur.kind {
        lets.insert(*v, &**a);
        cur = b;
    }
    let Kind::Neg(x) = &cur.kind else {
        return None;
    };
    let read = match &x.kind {
        Kind::Var(t) => *lets.get(t)?,
        _ => &**x,
    };
    let Kind::Index(y, k) = &read.kind else {
        return None;
    };
    let (Kind::Var(y), Kind::Var(k)) = (&y.kind, &k.kind) else {
        return None;
    };
    let read_once = |v: &VarId| matches!(x.kind, Kind::Var(t) if t == *v);
    let dead = lets
        .iter()
        .all(|(v, a)| read_once(v) || (!cur.mentions(*v) && !a.ty.is_arr()));
    (*k == *i && dead).then_some(*y)
}

/// `build(n, |p| if p == at { y } else { 0 })`, the array `y` placed at row `at` of a zero
/// matrix: `(y, at)`.
fn placed_row(value: &Core) -> Option<(VarId, &Core)> {
    let (at, y) = placed(value)?;
    match y.kind {
        Kind::Var(y) => Some((y, at)),
        _ => None,
    }
}

/// The `let`s after position `pos` (the fold `x`) that read it, each related to it: `None`
/// when one reads it otherwise.
fn links(lets: &Lets, pos: usize, x: VarId) -> Option<HashMap<VarId, Link>> {
    let mut links: HashMap<VarId, Link> = HashMap::new();
    let part_of = |e: &Core, links: &HashMap<VarId, Link>| match &e.kind {
        Kind::Proj(t, j) if matches!(t.kind, Kind::Var(v) if v == x) => Some((*j, false)),
        Kind::Var(v) if *v == x && !e.ty.is_tuple() => Some((0, false)),
        Kind::Var(v) => match links.get(v) {
            Some(Link::Part { part, negated }) => Some((*part, *negated)),
            _ => None,
        },
        _ => None,
    };
    for (v, value) in &lets[pos + 1..] {
        if !value.mentions(x) && !links.keys().any(|l| value.mentions(*l)) {
            continue;
        }
        let link = if let Some((part, negated)) = part_of(value, &links) {
            Link::Part { part, negated }
        } else if let Some(y) = negation_of(value)
            && let Some(Link::Part { part, negated }) = links.get(&y)
        {
            Link::Part {
                part: *part,
                negated: !negated,
            }
        } else if let Some((y, at)) = placed_row(value)
            && let Some(Link::Part { part, negated }) = links.get(&y)
        {
            Link::Row {
                part: *part,
                negated: *negated,
                at: at.clone(),
            }
        } else {
            return None;
        };
        links.insert(*v, link);
    }
    Some(links)
}

impl Reverse<'_> {
    /// The step of a fold with tuple state `state` summing `parts`, when one sum from zero
    /// bound in `lets` (read nowhere else, no carried fold's sweep: [`CARRIED`](super::CARRIED)) reaches
    /// them only as rows or whole: each of its components, through `let`s that project,
    /// alias or negate it, placed at one row of one contribution or that contribution. That fold, started from the state
    /// plus the other contributions, its state widened to the whole state, each increment
    /// of a component made an increment of its row (see the module's documentation).
    pub(super) fn pass_rows_into(
        &mut self,
        state: VarId,
        state_ty: &Type,
        parts: &[(VarId, Type, Vec<Core>)],
        lets: &mut Lets,
        span: Sp,
    ) -> Option<Core> {
        let (pos, feeds, chain) = (0..lets.len()).rev().find_map(|pos| {
            let (x, value) = &lets[pos];
            if !self.is_sum_from_zero(*x, value) {
                return None;
            }
            let links = links(lets, pos, *x)?;
            if links.keys().any(|l| self.is_pending(*l)) {
                return None;
            }
            let tys = value.ty.parts().to_vec();
            let tys = if tys.is_empty() {
                vec![value.ty.clone()]
            } else {
                tys
            };
            let mut feeds: Vec<Option<Feed>> = tys.iter().map(|_| None).collect();
            let mut used = 0;
            for (k, (_, ty, cs)) in parts.iter().enumerate() {
                for c in cs {
                    // The fold itself (`x`, `x.j`), or a `let` after it linked to it.
                    let link = match &c.kind {
                        Kind::Var(h) if *h == *x && tys.len() == 1 => Link::Part {
                            part: 0,
                            negated: false,
                        },
                        Kind::Proj(t, j) if matches!(t.kind, Kind::Var(v) if v == *x) => {
                            Link::Part {
                                part: *j,
                                negated: false,
                            }
                        }
                        Kind::Var(h) => match links.get(h) {
                            Some(link) => link.clone(),
                            None if *h == *x => return None,
                            None => continue,
                        },
                        _ if c.mentions(*x) || links.keys().any(|l| c.mentions(*l)) => {
                            return None;
                        }
                        _ => continue,
                    };
                    let (part, negated, at) = match link {
                        Link::Row { part, negated, at } => (part, negated, Some(at)),
                        Link::Part { part, negated } => (part, negated, None),
                    };
                    let fits = match at {
                        Some(_) => {
                            ty.dims().len() == tys[part].dims().len() + 1
                                && ty.elem().same(&tys[part])
                                && ty.scalar() == tys[part].scalar()
                        }
                        None => ty.same(&tys[part]),
                    };
                    // One feed per outer component: two (`dot(t[k], t[k])`'s rows, an
                    // edge's two ends) would each be an increment of the state before.
                    let shared = feeds.iter().flatten().any(|f| f.to == k);
                    if feeds[part].is_some() || !fits || shared {
                        return None;
                    }
                    used += usize::from(at.is_some());
                    feeds[part] = Some(Feed { to: k, negated, at });
                }
            }
            // Each row link read once, by a contribution; every component fed, as a row or
            // whole.
            let rows = links
                .values()
                .filter(|l| matches!(l, Link::Row { .. }))
                .count();
            let feeds: Option<Vec<Feed>> = feeds.into_iter().collect();
            let chain: Vec<VarId> = links.keys().copied().collect();
            (rows == used).then_some((pos, feeds?, chain))
        })?;
        let (x, sum) = self.widened(lets, pos, &mut |rev, body, from, to, tuple| {
            let lift = Lift {
                ty: state_ty,
                feeds: &feeds,
                tuple,
            };
            lift.step(rev, body, from, to)
        })?;
        lets.retain(|(v, _)| *v != x && !chain.contains(v));
        let fed = |c: &Core| c.mentions(x) || matches!(c.kind, Kind::Var(h) if chain.contains(&h));
        Some(self.continued(state, state_ty, parts, sum, &|c| !fed(c), lets, span))
    }
}

/// The rewriting of a sum's steps into increments of rows of the outer state.
struct Lift<'a> {
    /// The outer state's type.
    ty: &'a Type,
    /// Where each of the sum's components goes.
    feeds: &'a [Feed],
    /// Whether the sum's state is a tuple.
    tuple: bool,
}

impl Lift<'_> {
    /// Rewrite the step `e` of a fold with state `from` (the sum's) into a step of one with
    /// state `to` (the outer state's type): its `let`s, then its value, or a nested fold
    /// on the same state (its start a value, its step rewritten the same way). The `let`s
    /// binding components of `from` are dropped; nothing else may read `from`.
    fn step(&self, rev: &mut Reverse, e: &mut Core, from: VarId, to: VarId) -> bool {
        let mut aliases: HashMap<VarId, usize> = HashMap::new();
        let mut cur = &mut *e;
        while let Kind::Let(v, value, _) = &cur.kind {
            let alias = match &value.kind {
                Kind::Proj(t, j) if self.tuple && matches!(t.kind, Kind::Var(s) if s == from) => {
                    Some(*j)
                }
                Kind::Var(s) if *s == from && !self.tuple => Some(0),
                _ => None,
            };
            if let Some(j) = alias {
                aliases.insert(*v, j);
                let Kind::Let(_, _, rest) = cur.take().kind else {
                    return false;
                };
                *cur = *rest;
                continue;
            }
            if value.mentions(from) || aliases.keys().any(|a| value.mentions(*a)) {
                return false;
            }
            let Kind::Let(_, _, rest) = &mut cur.kind else {
                return false;
            };
            cur = rest;
        }
        let reads = |x: &Core| x.mentions(from) || aliases.keys().any(|a| x.mentions(*a));
        let ok = match &mut cur.kind {
            // A nested fold on the same state: its start a next state, its step a step.
            Kind::Ifold(count, init, s, _, body) => {
                let s = *s;
                !reads(count)
                    && !reads(body)
                    && self.value(rev, init, from, &aliases, to)
                    && self.step(rev, body, s, s)
            }
            _ => self.value(rev, cur, from, &aliases, to),
        };
        if ok {
            retype_tail(e, self.ty);
        }
        ok
    }

    /// Rewrite `e`, the sum's next state (its components increments of the state `from`
    /// or its `aliases`), into the outer state's next state (in `to`).
    fn value(
        &self,
        rev: &mut Reverse,
        e: &mut Core,
        from: VarId,
        aliases: &HashMap<VarId, usize>,
        to: VarId,
    ) -> bool {
        let Some(values) = components(e, self.tuple) else {
            return false;
        };
        let span = e.span;
        let width = self.ty.parts().len().max(1);
        let outer = |k: usize| part(var(to, self.ty, span), k, width);
        let mut next: Vec<Option<Core>> = vec![None; width];
        for (j, v) in values.into_iter().enumerate() {
            let is_state = |x: &Core| match &x.kind {
                Kind::Var(a) => aliases.get(a) == Some(&j) || (!self.tuple && *a == from),
                Kind::Proj(t, k) => *k == j && matches!(t.kind, Kind::Var(s) if s == from),
                _ => false,
            };
            let feed = &self.feeds[j];
            let Some(row) = lift_increment(rev, &v, &is_state, feed, outer(feed.to)) else {
                return false;
            };
            next[feed.to] = Some(row);
        }
        *e = whole_state(next, to, self.ty, span);
        true
    }
}

/// The increment `v` of a sum's component (`is_state` tells its state) as the same
/// increment of row `feed.at` of `outer`, or of `outer` itself when the component is fed
/// whole (its terms negated for a negated feed): the state itself is `outer`; `build(n, |q| if q == e { s[q] + t } else { s[q] })` and
/// `build(n, |q| s[q] + t)` are `build(m, |p| if p == at { .. outer[p][q] + t .. } else {
/// outer[p] })`. `None` for any other form.
fn lift_increment(
    rev: &mut Reverse,
    v: &Core,
    is_state: &dyn Fn(&Core) -> bool,
    feed: &Feed,
    outer: Core,
) -> Option<Core> {
    if is_state(v) {
        return Some(outer);
    }
    let Kind::Build(n, q, body) = &v.kind else {
        return None;
    };
    let is_element = |x: &Core| match &x.kind {
        Kind::Index(s, i) => is_state(s) && matches!(i.kind, Kind::Var(i) if i == *q),
        _ => false,
    };
    let term = |t: &Core| {
        let t = t.clone();
        if feed.negated { neg(t) } else { t }
    };
    let span = v.span;
    // The increment's element `q` of the outer component, or of its row `p`.
    let p = rev.new_var("p");
    let row = match feed.at {
        Some(_) => at(outer.clone(), index(p, span)),
        None => outer.clone(),
    };
    let element = at(row.clone(), index(*q, span));
    let plus = |t: &Core| bin(BinOp::Add, element.clone(), term(t));
    let new_body = match &body.kind {
        Kind::If(c, then, other) if is_element(other) => {
            let Kind::Bin(BinOp::Add, s, t, _) = &then.kind else {
                return None;
            };
            if !is_element(s) || t.mentions(*q) || mentions_state(t, is_state) {
                return None;
            }
            let Kind::Bin(BinOp::Eq, a, e, _) = &c.kind else {
                return None;
            };
            if !matches!(a.kind, Kind::Var(a) if a == *q) || mentions_state(e, is_state) {
                return None;
            }
            pick((**c).clone(), plus(t), element.clone())
        }
        Kind::Bin(BinOp::Add, s, t, _) if is_element(s) && !mentions_state(t, is_state) => plus(t),
        Kind::Bin(BinOp::Add, t, s, _) if is_element(s) && !mentions_state(t, is_state) => plus(t),
        _ => return None,
    };
    let new_row = Core::new(
        Kind::Build(n.clone(), *q, Box::new(new_body)),
        row.ty.clone(),
        span,
    );
    let lifted = match &feed.at {
        Some(r) => {
            let hit = bin(BinOp::Eq, index(p, span), r.clone());
            let rows = outer.ty.dims()[0].clone();
            Core::new(
                Kind::Build(rows, p, Box::new(pick(hit, new_row, row))),
                outer.ty.clone(),
                span,
            )
        }
        None => new_row,
    };
    Some(fresh(lifted, rev.names))
}

/// Whether `e` reads the state anywhere (`is_state` on any of its parts).
fn mentions_state(e: &Core, is_state: &dyn Fn(&Core) -> bool) -> bool {
    is_state(e) || e.children().any(|c| mentions_state(c, is_state))
}
