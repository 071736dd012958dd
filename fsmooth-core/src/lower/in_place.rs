//! Fold states updated in place (LANGUAGE.md section 13): an `ifold` whose step gives each
//! array component of its state a new value that reads, of the old one, only the same
//! element (`build(n, |j| x[j] + alpha * p[j])`, Welford's mean), and reads nothing of the
//! old component once the new value is written, keeps that component in one buffer (its
//! destination when it has one: a state that is the result iterates in its output) and
//! writes the new value over the old one. Nothing is copied per step; a `let` inside the
//! step costs what it costs anywhere.
//!
//! The rule is [`in_place`], on the step as the middle end leaves it; the translation is
//! [`Dps::fold_in_place`]. A state with any other array component (a stencil's, which reads
//! its neighbours) keeps the two buffers of [`Dps::ifold_parts_in_pairs`].

use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, plus};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::folds::lets_of;
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, Type, VarId};

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
    fn start(&self) -> usize {
        let first = self.members[0];
        self.before.first().map_or(first, |b| first.min(*b))
    }

    /// The last binding the group covers.
    fn end(&self) -> usize {
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
    tuple: bool,
}

impl Refs {
    /// True when `x` is component `c` itself (or, with `views`, may be a view of it).
    fn is(&self, x: &Core, c: usize, views: bool) -> bool {
        let names = if views { &self.all[c] } else { &self.direct[c] };
        match &x.kind {
            Kind::Var(v) => names.contains(v) || !self.tuple && self.whole.contains(v),
            Kind::Proj(t, k) => *k == c && self.is_whole(t),
            _ => false,
        }
    }

    /// True when `x` is the whole state.
    fn is_whole(&self, x: &Core) -> bool {
        matches!(x.kind, Kind::Var(v) if self.whole.contains(&v))
    }

    /// True when `x` reads component `c` anywhere (reading the whole state counts).
    fn reads(&self, x: &Core, c: usize) -> bool {
        if self.is_whole(x) || self.is(x, c, true) {
            return true;
        }
        if matches!(&x.kind, Kind::Proj(t, _) if self.is_whole(t)) {
            return false;
        }
        x.children().any(|y| self.reads(y, c))
    }
}

/// The in-place plan of an `ifold`'s step `body` over state `acc` (a tuple of `parts`
/// components when `tuple`; see [`StepPlan`]). Component `c` is updated in place when
/// - its new value is a one-dimensional `build(m, |j| e)`: the step's component `c`, or a
///   `let` that the result names as component `c` and as no other;
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
        all: Vec::new(),
        tuple,
    };
    for (v, a) in &lets {
        match &a.kind {
            Kind::Var(w) if refs.whole.contains(w) => refs.whole.push(*v),
            Kind::Proj(t, k) if tuple && refs.is_whole(t) => {
                if let Some(c) = refs.direct.get_mut(*k) {
                    c.push(*v);
                }
            }
            Kind::Var(w) => {
                if let Some(c) = refs.direct.iter_mut().find(|c| c.contains(w)) {
                    c.push(*v);
                }
            }
            _ => {}
        }
    }
    refs.all = refs.direct.clone();
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
            Kind::Build(..) | Kind::Array(_) => {
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
            match groups.last_mut() {
                Some(g) if joins => g.members.push(p),
                _ => groups.push(Group {
                    members: vec![p],
                    literal: true,
                    before: Vec::new(),
                }),
            }
            open = true;
            continue;
        }
        let Kind::Build(n, j, e) = &binds[p].value.kind else {
            open = false;
            continue;
        };
        if binds[p].value.ty.dims().len() > 1 {
            // Written over itself element by element on its own, in no loop with others.
            groups.push(Group {
                members: vec![p],
                literal: false,
                before: Vec::new(),
            });
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
                            let is_new = |x: &Core| matches!(x.kind, Kind::Var(w) if w == v);
                            at_own(e, *j, &is_new, &is_new)
                        });
                        old_c && old_d && new_d
                    })
            });
        match groups.last_mut() {
            Some(g) if joins => g.members.push(p),
            _ => groups.push(Group {
                members: vec![p],
                literal: false,
                before: Vec::new(),
            }),
        }
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
/// accepts (a matrix state whose elements each read only their own old element).
pub(super) fn own_element(
    new: &Core,
    direct: &dyn Fn(&Core) -> bool,
    any: &dyn Fn(&Core) -> bool,
) -> bool {
    let mut index = Vec::new();
    let mut elem = new;
    while let Kind::Build(_, i, body) = &elem.kind {
        index.push(*i);
        elem = body;
    }
    if index.len() != new.ty.dims().len() {
        return false;
    }
    let own = |y: &Core| super::accumulate::indexed_by(y, &index).is_some_and(direct);
    only_own(elem, &own, any)
}

/// True when `x` reads what `any` recognises only as `r[j]`, with `r` one `direct` accepts.
fn at_own(x: &Core, j: VarId, direct: &dyn Fn(&Core) -> bool, any: &dyn Fn(&Core) -> bool) -> bool {
    let own = |y: &Core| {
        matches!(&y.kind, Kind::Index(a, k)
            if matches!(k.kind, Kind::Var(w) if w == j) && direct(a))
    };
    only_own(x, &own, any)
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

impl Dps<'_> {
    /// An `ifold` each of whose array components [`plan`] updates in place, into `dest`: each
    /// array component in one place (its destination, or a buffer of its own where the
    /// result does not keep it), the initial value written there, then one loop whose steps
    /// write the new values over the old ones; the scalar components in locals. `None` for
    /// any other `ifold`, and with `storage = "heap"`.
    pub(super) fn fold_in_place(&mut self, e: &Core, dest: &Loc) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        if self.heap.is_some() {
            return None;
        }
        let tuple = e.ty.is_tuple();
        let types: Vec<&Type> = match &e.ty {
            Type::Tuple(ts) => ts.iter().collect(),
            t => vec![t],
        };
        let body = self.copies_as_builds(body, *acc, tuple);
        let plan = plan(&body, *acc, types.len(), tuple);
        let fits = types
            .iter()
            .zip(&plan.home)
            .all(|(t, h)| h.is_some() || !t.is_arr() && !t.is_tuple());
        if !fits || plan.home.iter().all(Option::is_none) {
            return None;
        }
        let dests: Vec<Loc> = match dest {
            Loc::Tuple(ds) if tuple && ds.len() == types.len() => ds.clone(),
            d if !tuple => vec![d.clone()],
            _ => return None,
        };
        let depth = self.frame.depth();
        let mut code = Vec::new();
        let (mut cur, mut nxt, mut takes) = (Vec::new(), Vec::new(), Vec::new());
        let mut copies = Vec::new();
        for (t, d) in types.iter().zip(&dests) {
            if t.is_arr() {
                // A small state of literal size in a local array (LLVM keeps it in
                // registers over the whole loop), copied to its destination after; else
                // in its destination, or one buffer of the frame.
                let elem = t.scalar().unwrap_or(Scalar::F64);
                let local = match d {
                    Loc::View(w) if matches!(w.base, Base::Local(_)) => None,
                    _ => self.alloc_local(elem, t.dims()),
                };
                let place = match (local, d) {
                    (Some((marker, w)), _) => {
                        code.push(marker);
                        if let Loc::View(to) = d {
                            let to = View {
                                dims: t.dims().to_vec(),
                                ..to.clone()
                            };
                            copies.push((w.clone(), to));
                        }
                        w
                    }
                    (None, Loc::View(w)) => View {
                        dims: t.dims().to_vec(),
                        ..w.clone()
                    },
                    (None, _) => {
                        let holds = Holds::State(*acc);
                        let (marker, w) = self.alloc(elem, t.dims(), holds, e.span);
                        code.push(marker);
                        w
                    }
                };
                cur.push(Loc::View(place.clone()));
                nxt.push(Loc::View(place));
            } else {
                let c = self.scalar_place(t, "acc", &mut code);
                let nx = self.scalar_place(t, "next", &mut code);
                takes.push(St::Assign(c.clone(), Ex::Var(nx.clone())));
                cur.push(Loc::Scalar(c));
                nxt.push(Loc::Scalar(nx));
            }
        }
        let places = cur.clone();
        let cur = match tuple {
            true => Loc::Tuple(cur),
            false => cur[0].clone(),
        };
        code.extend(self.write_parts(init, &cur));
        let nt = self.scalar(n);
        let iv = self.fold_index(n, *i);
        self.env.insert(*acc, cur.clone());
        self.enter_loop(*i, &iv);
        let inner = self.frame.depth();
        let mut step = self.in_place_step(&plan, &places, &nxt);
        step.extend(takes);
        self.frame.truncate(inner);
        let streams = self.leave_loop_sts(&mut step, None);
        code.push(St::For {
            var: iv,
            n: nt,
            streams,
            body: step,
        });
        let parts = match &cur {
            Loc::Tuple(ps) => ps.clone(),
            p => vec![p.clone()],
        };
        for (c, d) in parts.iter().zip(&dests) {
            if let (Loc::Scalar(id), Loc::Scalar(to)) = (c, d) {
                code.push(St::Assign(to.clone(), Ex::Var(id.clone())));
            }
        }
        for (from, to) in copies {
            code.push(self.copy(&from, &to));
        }
        self.frame.truncate(depth);
        Some(vec![St::Block(code)])
    }

    /// `body` with each component of its result that is another component of the old state
    /// as it is (`(new_s1, s1)`, Goertzel's shift) written `build(m, |j| s1[j])`: a new value
    /// that reads the old state at its own index, which [`plan`] can then update in place
    /// (in one loop with the others).
    fn copies_as_builds(&mut self, body: &Core, acc: VarId, tuple: bool) -> Core {
        let mut body = body.clone();
        if !tuple {
            return body;
        }
        let (lets, _) = lets_of(&body);
        let aliases: Vec<VarId> = lets
            .iter()
            .filter(|(_, a)| matches!(&a.kind, Kind::Proj(t, _) if matches!(t.kind, Kind::Var(w) if w == acc)))
            .map(|(v, _)| *v)
            .collect();
        let Kind::Tuple(items) = &mut tail_mut(&mut body).kind else {
            return body;
        };
        for item in items.iter_mut() {
            let old = match &item.kind {
                Kind::Var(v) => aliases.contains(v),
                Kind::Proj(t, _) => matches!(t.kind, Kind::Var(w) if w == acc),
                _ => false,
            };
            if !old || item.ty.dims().len() != 1 {
                continue;
            }
            // Of a literal length: an array literal, as the step's other new values of that
            // length are once unrolled.
            if let Some(len) = item.ty.dims()[0].as_const().filter(|l| *l <= 16) {
                let items = (0..len)
                    .map(|k| {
                        let at = Core::size(Size::Lit(k), item.span);
                        Core::new(
                            Kind::Index(Box::new(item.clone()), Box::new(at)),
                            item.ty.elem(),
                            item.span,
                        )
                    })
                    .collect();
                *item = Core::new(Kind::Array(items), item.ty.clone(), item.span);
                continue;
            }
            let j = self.fresh_index();
            let at = Core::index_var(j, item.span);
            let elem = Core::new(
                Kind::Index(Box::new(item.clone()), Box::new(at)),
                item.ty.elem(),
                item.span,
            );
            let n = item.ty.dims()[0].clone();
            *item = Core::new(
                Kind::Build(n, j, Box::new(elem)),
                item.ty.clone(),
                item.span,
            );
        }
        body
    }

    /// The two places of each component of `e`'s state for [`Dps::ifold_parts_in_pairs`]: a
    /// component its step updates in place on its own (a `build` over itself, in no group
    /// with others: [`super::in_place::plan`]) has one, its destination or one buffer, both
    /// steps of a pair reading and writing it; the others two ([`Dps::acc_places`]).
    pub(super) fn pair_places(
        &mut self,
        e: &Core,
        dest: &Loc,
        code: &mut Vec<St>,
        steps: &mut Vec<super::tuples::Step>,
        single: &mut Vec<View>,
    ) -> (Loc, Loc) {
        let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
            return self.acc_places(&e.ty, 0, true, e.span, code, steps);
        };
        let (Type::Tuple(ts), Loc::Tuple(ds)) = (&e.ty, dest) else {
            return self.acc_places(&e.ty, *acc, true, e.span, code, steps);
        };
        let plan = plan(body, *acc, ts.len(), true);
        let alone = |c: usize| {
            plan.home[c].is_some_and(|p| {
                matches!(plan.binds[p].value.kind, Kind::Build(..))
                    && !plan.groups.iter().any(|g| g.members.contains(&p))
            })
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (c, (t, d)) in ts.iter().zip(ds).enumerate() {
            if t.is_arr() && alone(c) {
                let place = match d {
                    Loc::View(w) => View {
                        dims: t.dims().to_vec(),
                        ..w.clone()
                    },
                    _ => {
                        let elem = t.scalar().unwrap_or(Scalar::F64);
                        let holds = Holds::State(*acc);
                        let (marker, w) = self.alloc(elem, t.dims(), holds, e.span);
                        code.push(marker);
                        w
                    }
                };
                single.push(place.clone());
                a.push(Loc::View(place.clone()));
                b.push(Loc::View(place));
            } else {
                let (x, y) = self.acc_places(t, *acc, true, e.span, code, steps);
                a.push(x);
                b.push(y);
            }
        }
        (Loc::Tuple(a), Loc::Tuple(b))
    }

    /// One step of [`Dps::fold_in_place`]: its bindings in order, each new value written over
    /// its component (a group of them in one loop, [`Dps::fused_in_place`]), then the scalar
    /// components' next values into `nxt`.
    fn in_place_step(&mut self, plan: &StepPlan, places: &[Loc], nxt: &[Loc]) -> Vec<St> {
        // Each component in an output is replaced, read in part or not at all.
        let mut code = self.restated_all(places.iter().filter_map(|p| match p {
            Loc::View(w) => Some(w),
            _ => None,
        }));
        let mut p = 0;
        while p < plan.binds.len() {
            if let Some(g) = plan.groups.iter().find(|g| g.start() == p) {
                for &b in &g.before {
                    if let Some(v) = plan.binds[b].var {
                        // Moved before the group: not written over an array that a member
                        // bound before it in the step may read.
                        self.overwrites.remove(&v);
                        code.extend(self.bind(v, plan.binds[b].value));
                    }
                }
                code.extend(match g.literal {
                    true => self.literals_in_place(plan, &g.members, places),
                    false => self.fused_in_place(plan, &g.members, places),
                });
                p = g.end() + 1;
                continue;
            }
            let b = &plan.binds[p];
            let home = plan.home.iter().position(|h| *h == Some(p));
            match (home.map(|c| &places[c]), b.var) {
                (Some(Loc::View(w)), var) => {
                    let depth = self.frame.depth();
                    code.extend(self.write(b.value, w));
                    self.frame.truncate(depth);
                    if let Some(v) = var {
                        self.note(v, b.value);
                        self.env.insert(v, Loc::View(w.clone()));
                    }
                }
                (_, Some(v)) => code.extend(self.bind(v, b.value)),
                (_, None) => {}
            }
            p += 1;
        }
        for (item, next) in plan.items.iter().zip(nxt) {
            if let Loc::Scalar(id) = next {
                let v = self.scalar(item);
                code.push(St::Assign(id.clone(), v));
            }
        }
        code
    }

    /// The array literals `group` of a step: every item of each computed (reading the old
    /// state as it was), then each stored over its component with one range check.
    fn literals_in_place(&mut self, plan: &StepPlan, group: &[usize], places: &[Loc]) -> Vec<St> {
        let mut code = Vec::new();
        let mut stores = Vec::new();
        for &q in group {
            let b = &plan.binds[q];
            let c = plan.home.iter().position(|h| *h == Some(q));
            let (Some(Loc::View(w)), Kind::Array(items)) = (c.map(|c| &places[c]), &b.value.kind)
            else {
                continue;
            };
            let mut vs = Vec::new();
            for x in items {
                let depth = self.frame.depth();
                vs.push(Ex::Var(self.scalar_temp(x, "item", &mut code)));
                self.frame.truncate(depth);
            }
            let off = w.off.clone().unwrap_or(Ex::Usize(0));
            stores.push(St::StoreRow(w.base.clone(), off, vs));
            if let Some(v) = b.var {
                self.note(v, b.value);
                self.env.insert(v, Loc::View(w.clone()));
            }
        }
        code.extend(stores);
        code
    }

    /// The bindings `group` of a step (`build`s of one count, each reading the others only
    /// at its own index) in one loop: element `j` of each computed, the later ones reading
    /// the earlier ones' from locals, then all stored over their components' element `j`.
    fn fused_in_place(&mut self, plan: &StepPlan, group: &[usize], places: &[Loc]) -> Vec<St> {
        let Kind::Build(n, j0, _) = &plan.binds[group[0]].value.kind else {
            return Vec::new();
        };
        let nt = self.sizes.get(n);
        let iv = self.local(*j0);
        // Each member's place: its component's, or none for a member only the others read.
        let mut views = Vec::new();
        for &q in group {
            let c = plan.home.iter().position(|h| *h == Some(q));
            views.push(match c.map(|c| &places[c]) {
                Some(Loc::View(w)) => Some(w.clone()),
                _ => None,
            });
        }
        self.env.insert(*j0, Loc::Scalar(iv.clone()));
        self.bounds.insert(*j0, n.clone());
        self.enter_loop(*j0, &iv);
        let depth = self.frame.depth();
        let mut body = Vec::new();
        let mut temps = Vec::new();
        let mut earlier: Vec<VarId> = Vec::new();
        for &q in group {
            let b = &plan.binds[q];
            let Kind::Build(_, j, elem) = &b.value.kind else {
                continue;
            };
            // One index for the loop (so that reads along it are streams of its context).
            let mut elem = (**elem).clone();
            if j != j0 {
                elem.subst(*j, &Core::index_var(*j0, elem.span));
            }
            own_elements(&mut elem, &earlier, *j0);
            let t = self.scalar_temp(&elem, "elem", &mut body);
            if let Some(v) = b.var {
                self.env.insert(v, Loc::Scalar(t.clone()));
                earlier.push(v);
            }
            temps.push(t);
        }
        self.frame.truncate(depth);
        for (w, t) in views.iter().zip(temps) {
            if let Some(w) = w {
                let at = plus(&w.off, Ex::Var(iv.clone()));
                body.push(St::Store(w.base.clone(), at, Ex::Var(t)));
            }
        }
        let streams = self.leave_loop_sts(&mut body, None);
        for (&q, w) in group.iter().zip(&views) {
            let b = &plan.binds[q];
            if let (Some(v), Some(w)) = (b.var, w) {
                self.note(v, b.value);
                self.env.insert(v, Loc::View(w.clone()));
            }
        }
        vec![St::For {
            var: iv,
            n: nt,
            streams,
            body,
        }]
    }
}

/// In `x`, each read `v[j]` of a variable of `vars` (an element computed earlier in the same
/// loop) becomes `v` itself, a scalar.
fn own_elements(x: &mut Core, vars: &[VarId], j: VarId) {
    if let Kind::Index(a, k) = &x.kind
        && matches!(a.kind, Kind::Var(v) if vars.contains(&v))
        && matches!(k.kind, Kind::Var(w) if w == j)
    {
        x.kind = a.kind.clone();
        return;
    }
    for c in x.children_mut() {
        own_elements(c, vars, j);
    }
}

/// The expression the `let`s heading `e` end with.
fn tail_mut(e: &mut Core) -> &mut Core {
    match e.kind {
        Kind::Let(_, _, ref mut rest) => tail_mut(rest),
        _ => e,
    }
}
