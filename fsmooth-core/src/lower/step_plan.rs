//! The in-place plan of a fold's step (LANGUAGE.md section 13): which array components of an
//! `ifold`'s state get one place, their new value written over the old one, and which
//! `build`s of the step run as one loop ([`plan`], [`StepPlan`]). A component qualifies when
//! its new value reads, of the old one, only the same element (`build(n, |j| x[j] + alpha *
//! p[j])`, Welford's mean; a matrix's elements at their own row and column), or is an array
//! literal computed whole before it is stored, and nothing reads the old component once the
//! new value is written. The translation of the plan is `lower/in_place.rs`.

use crate::front::ast::BinOp;
use crate::lower::folds::lets_of;
use crate::middle::ir::{Core, Kind, VarId};

/// One binding of a fold's step: a `let` (its variable), or a component of the result
/// written in place (no variable).
pub(super) struct Bind<'a> {
    pub(super) var: Option<VarId>,
    pub(super) value: &'a Core,
}

/// How a fold's step updates its state in place: see [`plan`].
pub(super) struct StepPlan<'a> {
    /// The step's `let`s in order, then the components of its result that are `build`s
    /// written where the state is.
    pub(super) binds: Vec<Bind<'a>>,
    /// The step's result, one item per component.
    pub(super) items: Vec<&'a Core>,
    /// For each component of the state, the binding that computes its new value over the
    /// old one, when it is updated in place.
    pub(super) home: Vec<Option<usize>>,
    /// Bindings computed in one loop, element by element (see [`Group`]).
    pub(super) groups: Vec<Group>,
}

/// `build`s of one count among a step's bindings, each reading the others (their old state
/// and new values) only at its own index, computed in one loop: element `j` of each, then
/// each `home`'s stored over its component's. A member that is no `home` (`let delta =
/// build(..)`, read only by the others at their index) is never stored: a `let` inside the
/// step costs nothing.
pub(super) struct Group {
    /// The members' positions, in order.
    pub(super) members: Vec<usize>,
    /// Members that are array literals (a loop of literal count written out): every item of
    /// every member computed, then each member stored, so that they may read the old state
    /// anywhere.
    pub(super) literal: bool,
    /// The bindings among them that read no member: computed before the loop.
    pub(super) before: Vec<usize>,
}

impl Group {
    /// The first binding the group covers.
    pub(super) fn start(&self) -> usize {
        let first = self.members[0];
        self.before.first().map_or(first, |b| first.min(*b))
    }

    /// The last binding the group covers.
    pub(super) fn end(&self) -> usize {
        let last = self.members[self.members.len() - 1];
        self.before.last().map_or(last, |b| last.max(*b))
    }
}

/// What a fold's step reads of its state, component by component.
struct Refs {
    /// Variables standing for the whole state.
    whole: Vec<VarId>,
    /// For each component, the variables naming it (`let x = acc.0`).
    direct: Vec<Vec<VarId>>,
    /// For each component, those and the `let`s of arrays that read it and may be views of
    /// it (`let y = x[k]`): reading one is reading the old state, but not at a known index.
    all: Vec<Vec<VarId>>,
    /// `let`s of tuples of components (`let t = (acc.1, acc.2)`: a nested tuple state, which
    /// the middle end flattens, read as `t.1`), what each item is.
    tuples: Vec<(VarId, Vec<Item>)>,
    tuple: bool,
}

/// An item of a `let`-bound tuple in a fold's step (see [`Refs::tuples`]).
#[derive(Clone)]
enum Item {
    /// A component of the state, as it is.
    Part(usize),
    /// A tuple of items.
    Tuple(Vec<Item>),
    /// Any other value: the components it reads, when it is an array that may be a view
    /// of them.
    Value(Vec<usize>),
}

impl Item {
    /// True when the item reads component `c`.
    fn reads(&self, c: usize) -> bool {
        match self {
            Item::Part(k) => *k == c,
            Item::Tuple(xs) => xs.iter().any(|x| x.reads(c)),
            Item::Value(cs) => cs.contains(&c),
        }
    }
}

impl Refs {
    /// True when `x` is component `c` itself (or, with `views`, may be a view of it).
    fn is(&self, x: &Core, c: usize, views: bool) -> bool {
        let names = if views { &self.all[c] } else { &self.direct[c] };
        match &x.kind {
            Kind::Var(v) if names.contains(v) || !self.tuple && self.whole.contains(v) => true,
            Kind::Proj(..) | Kind::Var(_) => match self.item(x) {
                Some(Item::Part(k)) => k == c,
                Some(Item::Value(cs)) => views && cs.contains(&c),
                _ => false,
            },
            _ => false,
        }
    }

    /// True when `x` is the whole state.
    fn is_whole(&self, x: &Core) -> bool {
        matches!(x.kind, Kind::Var(v) if self.whole.contains(&v))
    }

    /// What `x` is of the state when it is the state, a component, or an item of a
    /// `let`-bound tuple of them, through projections.
    fn item(&self, x: &Core) -> Option<Item> {
        match &x.kind {
            Kind::Var(v) if self.tuple && self.whole.contains(v) => Some(Item::Tuple(
                (0..self.direct.len()).map(Item::Part).collect(),
            )),
            Kind::Var(v) => match self.direct.iter().position(|d| d.contains(v)) {
                Some(c) => Some(Item::Part(c)),
                None => self
                    .tuples
                    .iter()
                    .find(|(w, _)| w == v)
                    .map(|(_, xs)| Item::Tuple(xs.clone())),
            },
            Kind::Proj(t, k) => match self.item(t)? {
                Item::Tuple(xs) => xs.get(*k).cloned(),
                _ => None,
            },
            _ => None,
        }
    }

    /// `x`, an item of a tuple being bound, as an [`Item`].
    fn item_of(&self, x: &Core) -> Item {
        if let Some(it) = self.item(x) {
            return it;
        }
        match &x.kind {
            Kind::Tuple(xs) => Item::Tuple(xs.iter().map(|y| self.item_of(y)).collect()),
            _ if x.ty.is_arr() && !matches!(x.kind, Kind::Build(..) | Kind::Array(_)) => {
                Item::Value(
                    (0..self.direct.len())
                        .filter(|c| self.reads(x, *c))
                        .collect(),
                )
            }
            _ => Item::Value(Vec::new()),
        }
    }

    /// True when `x` reads component `c` anywhere (reading the whole state counts).
    fn reads(&self, x: &Core, c: usize) -> bool {
        if self.is_whole(x) || self.is(x, c, true) {
            return true;
        }
        if let Some(it) = self.item(x) {
            return it.reads(c);
        }
        x.children().any(|y| self.reads(y, c))
    }
}

/// The in-place plan of an `ifold`'s step `body` over state `acc` (a tuple of `parts`
/// components when `tuple`; see [`StepPlan`]). Component `c` is updated in place when
/// - its new value is a one-dimensional `build(m, |j| e)` (or `scan(m, s0, |s, j| e)` of a
///   scalar state): the step's component `c`, or a `let` that the result names as
///   component `c` and as no other;
/// - `e` reads the old component only at its own index, `old[j]` (so an element read is the
///   element written), through the state or a `let` naming the component;
/// - after that `build`, nothing reads the old component: no later `let` (but the others of
///   its group, at their own index), no other component of the result, in any spelling (the
///   state's variable, a projection, a `let` naming it, a `let` of an array that may be a
///   view of it).
pub(super) fn plan(body: &Core, acc: VarId, parts: usize, tuple: bool) -> StepPlan<'_> {
    let (lets, tail) = lets_of(body);
    let items: Vec<&Core> = match (&tail.kind, tuple) {
        (Kind::Tuple(xs), true) if xs.len() == parts => xs.iter().collect(),
        (_, false) => vec![tail],
        _ => Vec::new(),
    };
    let mut binds: Vec<Bind> = lets
        .iter()
        .map(|(v, a)| Bind {
            var: Some(*v),
            value: a,
        })
        .collect();
    let mut home: Vec<Option<usize>> = vec![None; parts];
    if items.len() != parts {
        return StepPlan {
            binds,
            items,
            home,
            groups: Vec::new(),
        };
    }
    let mut refs = Refs {
        whole: vec![acc],
        direct: vec![Vec::new(); parts],
        all: vec![Vec::new(); parts],
        tuples: Vec::new(),
        tuple,
    };
    for (v, a) in &lets {
        if matches!(a.kind, Kind::Var(w) if refs.whole.contains(&w)) {
            refs.whole.push(*v);
            continue;
        }
        match refs.item(a) {
            Some(Item::Part(c)) => {
                refs.direct[c].push(*v);
                refs.all[c].push(*v);
            }
            Some(Item::Tuple(xs)) => refs.tuples.push((*v, xs)),
            None if tuple && a.ty.is_tuple() => {
                if let Item::Tuple(xs) = refs.item_of(a) {
                    refs.tuples.push((*v, xs));
                }
            }
            _ => {}
        }
    }
    for (v, a) in &lets {
        if a.ty.is_arr() && !matches!(a.kind, Kind::Build(..) | Kind::Array(_)) {
            for c in 0..parts {
                if !refs.all[c].contains(v) && refs.reads(a, c) {
                    refs.all[c].push(*v);
                }
            }
        }
    }
    // Each component's candidate binding.
    for (c, item) in items.iter().enumerate() {
        let at = match item.kind {
            Kind::Var(v) => {
                let named = items
                    .iter()
                    .filter(|x| matches!(x.kind, Kind::Var(w) if w == v))
                    .count();
                match lets.iter().position(|(x, _)| *x == v) {
                    Some(p) if named == 1 => p,
                    _ => continue,
                }
            }
            Kind::Build(..) | Kind::Array(_) | Kind::Scan(..) => {
                binds.push(Bind {
                    var: None,
                    value: item,
                });
                binds.len() - 1
            }
            _ => continue,
        };
        let new = binds[at].value;
        if let Kind::Array(xs) = &new.kind {
            // Every item computed before any is stored ([`Group::literal`]): it may read the
            // old component anywhere.
            if new.ty.dims().len() == 1 && xs.iter().all(|x| !x.ty.is_arr() && !x.ty.is_tuple()) {
                home[c] = Some(at);
            }
            continue;
        }
        // A scan of scalars reading the old component only at its own index (a filter run
        // again over the state each step): step `j` reads element `j` before it writes it.
        if let Kind::Scan(_, init, _, j, e) = &new.kind {
            if new.ty.dims().len() == 1
                && !init.ty.is_tuple()
                && at_own(e, *j, &|x| refs.is(x, c, false), &|x| refs.is(x, c, true))
            {
                home[c] = Some(at);
            }
            continue;
        }
        let Kind::Build(_, j, e) = &new.kind else {
            continue;
        };
        if new.ty.dims().len() == 1
            && at_own(e, *j, &|x| refs.is(x, c, false), &|x| refs.is(x, c, true))
        {
            home[c] = Some(at);
        }
        if new.ty.dims().len() > 1
            && own_element(new, &|x| refs.is(x, c, false), &|x| refs.is(x, c, true))
        {
            home[c] = Some(at);
        }
    }
    // Bindings that may be computed in a group's loop and never stored.
    let mut transient: Vec<usize> = (0..lets.len())
        .filter(|p| !home.contains(&Some(*p)))
        .filter(|p| matches!(&binds[*p].value.kind, Kind::Build(..) if binds[*p].value.ty.dims().len() == 1))
        .collect();
    // Drop the candidates read after their group, and the transient members read outside
    // theirs, until none is.
    loop {
        let groups = group(&binds, &home, &transient, &refs);
        let of = |p: usize| groups.iter().find(|g| g.members.contains(&p));
        let mut dropped = false;
        for (c, slot) in home.iter_mut().enumerate() {
            let Some(p) = *slot else {
                continue;
            };
            let end = of(p).map_or(p, Group::end);
            // The bindings after the group (the components written inline among them) and
            // the result's other components that are not bindings.
            let later = binds.iter().skip(end + 1).map(|b| b.value);
            let others = items
                .iter()
                .enumerate()
                .filter(|(k, x)| *k != c && !binds.iter().any(|b| std::ptr::eq(b.value, **x)))
                .map(|(_, x)| *x);
            if later.chain(others).any(|x| refs.reads(x, c)) {
                *slot = None;
                dropped = true;
            }
        }
        for t in transient.clone() {
            let Some(v) = binds[t].var else {
                continue;
            };
            // Read by members of its group only, and stored by none: a group with a home.
            let kept = of(t).is_some_and(|g| {
                let outside = (0..binds.len())
                    .filter(|q| !g.members.contains(q))
                    .any(|q| binds[q].value.mentions(v))
                    || items
                        .iter()
                        .any(|x| !binds.iter().any(|b| std::ptr::eq(b.value, *x)) && x.mentions(v));
                !outside && g.members.iter().any(|q| home.contains(&Some(*q)))
            });
            if !kept {
                transient.retain(|q| *q != t);
                dropped = true;
            }
        }
        if !dropped {
            return StepPlan {
                binds,
                items,
                home,
                groups: groups
                    .into_iter()
                    .filter(|g| g.members.len() > 1 || g.literal)
                    .collect(),
            };
        }
    }
}

/// The groups (see [`Group`]) of a step's `binds`: runs of `build`s of one count, each a
/// `home` or `transient`, each reading the others only at its own index; the bindings between
/// them that read no member go before the loop. One-member groups included.
fn group(binds: &[Bind], home: &[Option<usize>], transient: &[usize], refs: &Refs) -> Vec<Group> {
    let comp_of = |p: usize| home.iter().position(|h| *h == Some(p));
    let mut groups: Vec<Group> = Vec::new();
    let mut open = false;
    for p in 0..binds.len() {
        let eligible = comp_of(p).is_some() || transient.contains(&p);
        if !eligible {
            // Between members: computed before the loop when it reads none of them.
            if let Some(g) = groups.last_mut().filter(|_| open) {
                let reads_member = g
                    .members
                    .iter()
                    .any(|q| binds[*q].var.is_some_and(|v| binds[p].value.mentions(v)));
                if reads_member {
                    open = false;
                } else {
                    g.before.push(p);
                }
            }
            continue;
        }
        if let Kind::Array(_) = &binds[p].value.kind {
            // Literals join literals that do not read their new values.
            let joins = open
                && groups.last().is_some_and(|g| {
                    g.literal
                        && g.members
                            .iter()
                            .all(|q| binds[*q].var.is_none_or(|v| !binds[p].value.mentions(v)))
                });
            join_or_open(&mut groups, joins, p, true);
            open = true;
            continue;
        }
        let Kind::Build(n, j, e) = &binds[p].value.kind else {
            open = false;
            continue;
        };
        if binds[p].value.ty.dims().len() > 1 {
            // Written over itself element by element on its own, in no loop with others.
            join_or_open(&mut groups, false, p, false);
            open = false;
            continue;
        }
        let c = comp_of(p);
        let joins = open
            && groups.last().is_some_and(|g| {
                !g.literal
                    && matches!(&binds[g.members[0]].value.kind, Kind::Build(m, ..) if m == n)
                    && g.members.iter().all(|&q| {
                        let Kind::Build(_, jq, eq) = &binds[q].value.kind else {
                            return false;
                        };
                        // The earlier member reads the new one's old state at its own index
                        // only; the new member so reads the earlier's old state and new value.
                        let old_c = c.is_none_or(|c| {
                            at_own(eq, *jq, &|x| refs.is(x, c, false), &|x| refs.is(x, c, true))
                        });
                        let old_d = comp_of(q).is_none_or(|d| {
                            at_own(e, *j, &|x| refs.is(x, d, false), &|x| refs.is(x, d, true))
                        });
                        let new_d = binds[q].var.is_none_or(|v| {
                            // A new value is computed element by element in the group's
                            // loop: read at the index itself only (not at `r` under
                            // `if j == r`, which the loop has no element for).
                            let is_new = |x: &Core| matches!(x.kind, Kind::Var(w) if w == v);
                            at_index_only(e, *j, &is_new)
                        });
                        old_c && old_d && new_d
                    })
            });
        join_or_open(&mut groups, joins, p, false);
        open = true;
    }
    // Bindings taken in after a group's last member belong to what follows it.
    for g in &mut groups {
        let last = g.members[g.members.len() - 1];
        g.before.retain(|b| *b < last);
    }
    groups
}

/// True when `new` is a `build` of `build`s down to its elements, each element reading what
/// `any` recognises only as `r[j1]..[jk]` at the builds' own indexes, with `r` one `direct`
/// accepts (a matrix state whose elements each read only their own old element). A level
/// may choose its row, `if j == c { row } else { r[j] }` (a row update written out, `c` a
/// constant or a value not read from the array): the chosen row's elements read `r[c][..]`.
pub(super) fn own_element(
    new: &Core,
    direct: &dyn Fn(&Core) -> bool,
    any: &dyn Fn(&Core) -> bool,
) -> bool {
    own_below(new, &mut Vec::new(), new.ty.dims().len(), direct, any)
}

/// An index of the new array in [`own_below`]: a loop's, or the value it equals in a branch.
#[derive(Clone)]
enum At<'a> {
    Loop(VarId),
    Equal(&'a Core),
    /// An element of an array literal (a row written out, `[r[k][0] + t, r[k][1], ..]`).
    Const(u64),
}

/// [`own_element`] for `e`, the part of the new array at `index` (of `rank` levels).
fn own_below<'a>(
    e: &'a Core,
    index: &mut Vec<At<'a>>,
    rank: usize,
    direct: &dyn Fn(&Core) -> bool,
    any: &dyn Fn(&Core) -> bool,
) -> bool {
    let own = |index: &[At<'a>]| {
        let index = index.to_vec();
        move |y: &Core| indexed_at(y, &index).is_some_and(direct)
    };
    match &e.kind {
        Kind::Build(_, i, body) if index.len() < rank => {
            index.push(At::Loop(*i));
            let ok = own_below(body, index, rank, direct, any);
            index.pop();
            ok
        }
        Kind::If(c, t, f) if e.ty.is_arr() && index.len() < rank => {
            chosen_own(c, t, f, index, rank, direct, any).unwrap_or(false)
        }
        // An element chosen the same way (`if q == x[i][j] { h[j][q] + 1 } else { h[j][q] }`,
        // a count per feature); any other test, as any other element.
        Kind::If(c, t, f) if index.len() == rank => chosen_own(c, t, f, index, rank, direct, any)
            .unwrap_or_else(|| only_own(e, &own(index), any)),
        // A scalar computed before a level's elements, reading nothing of the old array
        // (`smul(s[j], 1.0 / c[j])` binds the factor before its `build`).
        Kind::Let(_, v, b) if index.len() < rank && !v.ty.is_arr() && !v.ty.is_tuple() => {
            only_own(v, &|_| false, any) && own_below(b, index, rank, direct, any)
        }
        Kind::Array(items) if index.len() < rank => items.iter().enumerate().all(|(c, item)| {
            index.push(At::Const(c as u64));
            let ok = own_below(item, index, rank, direct, any);
            index.pop();
            ok
        }),
        _ if index.len() == rank => only_own(e, &own(index), any),
        // A row of the old array at its own place (`r[j]`, kept by a row update).
        _ => own(index)(e),
    }
}

/// [`own_below`] for `if c { t } else { f }` at `index` when `c` is `j == k` for the last
/// loop index `j` (`k` free of `j` and of the array): `t` is read at `k` for `j`. `None` for
/// another test.
fn chosen_own<'a>(
    c: &'a Core,
    t: &'a Core,
    f: &'a Core,
    index: &mut Vec<At<'a>>,
    rank: usize,
    direct: &dyn Fn(&Core) -> bool,
    any: &dyn Fn(&Core) -> bool,
) -> Option<bool> {
    let Some(At::Loop(j)) = index.last().cloned() else {
        return None;
    };
    let Kind::Bin(BinOp::Eq, l, r, _) = &c.kind else {
        return None;
    };
    let k = match (&l.kind, &r.kind) {
        (Kind::Var(w), _) if *w == j && !r.mentions(j) => &**r,
        (_, Kind::Var(w)) if *w == j && !l.mentions(j) => &**l,
        _ => return None,
    };
    let own = {
        let index = index.to_vec();
        move |y: &Core| indexed_at(y, &index).is_some_and(direct)
    };
    if !only_own(c, &own, any) || !only_own(k, &|_| false, any) {
        return Some(false);
    }
    let last = index.len() - 1;
    index[last] = At::Equal(k);
    let chosen = own_below(t, index, rank, direct, any);
    index[last] = At::Loop(j);
    Some(chosen && own_below(f, index, rank, direct, any))
}

/// The array `e` indexes at `index` (each index the loop's variable, or an expression equal
/// to the value it stands for), when it is such a read.
fn indexed_at<'a>(e: &'a Core, index: &[At]) -> Option<&'a Core> {
    let mut cur = e;
    for at in index.iter().rev() {
        let Kind::Index(a, i) = &cur.kind else {
            return None;
        };
        let ok = match at {
            At::Loop(p) => matches!(i.kind, Kind::Var(v) if v == *p),
            At::Equal(k) => crate::middle::cse::key(k) == crate::middle::cse::key(i),
            At::Const(c) => i.sym.as_ref().and_then(|s| s.as_const()) == Some(*c),
        };
        if !ok {
            return None;
        }
        cur = a;
    }
    Some(cur)
}

/// True when `x` reads what `any` recognises only as `r[j]`, with `r` one `direct` accepts.
fn at_own(x: &Core, j: VarId, direct: &dyn Fn(&Core) -> bool, any: &dyn Fn(&Core) -> bool) -> bool {
    at_own_where(x, j, None, direct, any)
}

/// [`at_own`] where `j` is known to equal `eq` (inside `if j == r`): a read at `r` is a read
/// at `j` (LANGUAGE.md section 13; reverse mode's adjoint of a row writes `old[r]` there).
fn at_own_where(
    x: &Core,
    j: VarId,
    eq: Option<&Core>,
    direct: &dyn Fn(&Core) -> bool,
    any: &dyn Fn(&Core) -> bool,
) -> bool {
    if let Kind::Index(a, k) = &x.kind
        && direct(a)
        && (matches!(k.kind, Kind::Var(w) if w == j)
            || eq.is_some_and(|r| crate::middle::cse::key(r) == crate::middle::cse::key(k)))
    {
        return true;
    }
    if any(x) {
        return false;
    }
    if let Kind::If(c, t, f) = &x.kind
        && let Kind::Bin(op @ (BinOp::Eq | BinOp::Ne), l, r, _) = &c.kind
    {
        let other = match (&l.kind, &r.kind) {
            (Kind::Var(w), _) if *w == j && !r.mentions(j) => Some(&**r),
            (_, Kind::Var(w)) if *w == j && !l.mentions(j) => Some(&**l),
            _ => None,
        };
        if let Some(r) = other {
            let (known, other_branch) = if *op == BinOp::Eq { (t, f) } else { (f, t) };
            return at_own_where(c, j, eq, direct, any)
                && at_own_where(known, j, Some(r), direct, any)
                && at_own_where(other_branch, j, eq, direct, any);
        }
    }
    x.children().all(|y| at_own_where(y, j, eq, direct, any))
}

/// Binding `p` added to the last group when it `joins` it, else the first of a new one.
fn join_or_open(groups: &mut Vec<Group>, joins: bool, p: usize, literal: bool) {
    match groups.last_mut() {
        Some(g) if joins => g.members.push(p),
        _ => groups.push(Group {
            members: vec![p],
            literal,
            before: Vec::new(),
        }),
    }
}

/// True when `x` reads what `is` recognises only at index `j` itself (`v[j]`), with no
/// knowledge from an enclosing `if j == r` (see [`at_own`]).
fn at_index_only(x: &Core, j: VarId, is: &dyn Fn(&Core) -> bool) -> bool {
    let own = |y: &Core| matches!(&y.kind, Kind::Index(a, k) if matches!(k.kind, Kind::Var(w) if w == j) && is(a));
    only_own(x, &own, is)
}

/// True when `x` reads what `is_ref` recognises only where `own` accepts the read.
fn only_own(x: &Core, own: &dyn Fn(&Core) -> bool, is_ref: &dyn Fn(&Core) -> bool) -> bool {
    if own(x) {
        return true;
    }
    if is_ref(x) {
        return false;
    }
    x.children().all(|y| only_own(y, own, is_ref))
}
